import MienCore
import Testing

/// The value types behind re-identification: descriptors, the gallery of lost faces, per-face memory,
/// options and chip sharpness.
@Suite("Identity")
struct IdentityTests {
    private func descriptor(_ first: Float, _ second: Float = 0) throws -> FaceDescriptor {
        try FaceDescriptor(values: [first, second] + Array(repeating: 0, count: FaceDescriptor.count - 2))
    }

    @Test func descriptor_checksItsValues_measuresDistance_andAverages() throws {
        #expect(#expect(throws: MienError.self) { try FaceDescriptor(values: [1, 2]) }?.code == .invalidArgument)
        #expect(
            #expect(throws: MienError.self) { try FaceDescriptor(values: [.nan] + Array(repeating: 0, count: 127)) }?
                .code == .invalidArgument)
        #expect(abs(try descriptor(3, 0).distance(to: descriptor(0, 4)) - 5) < 1e-9)
        let mean = try #require(FaceDescriptor.mean(of: [descriptor(1, 2), descriptor(3, 6)]))
        #expect(mean == (try descriptor(2, 4)))
        #expect(FaceDescriptor.mean(of: []) == nil)
    }

    @Test func gallery_matchesNearestFirst_withinTheThreshold_andForgets() throws {
        var gallery = FaceGallery()
        gallery.remember(3, descriptor: try descriptor(1), lostAt: 10)
        gallery.remember(5, descriptor: try descriptor(0.2), lostAt: 20)
        gallery.remember(7, descriptor: try descriptor(5), lostAt: 30)
        let matches = gallery.matches(for: try descriptor(0.5), within: 0.6)
        #expect(matches.map(\.faceId) == [5, 3])
        #expect(gallery.matches(for: try descriptor(3), within: 0.6).isEmpty)
        gallery.forget(before: 15)
        #expect(!gallery.contains(3) && gallery.contains(5) && gallery.count == 2)
        gallery.remove(5)
        #expect(gallery.matches(for: try descriptor(0.5), within: 0.6).isEmpty)
        gallery.reset()
        #expect(gallery.count == 0)
    }

    @Test func perFaceMemory_dropsLostFaces_orKeepsThemForTheirReturn() {
        var plain = PerFaceMemory<Int>()
        plain[1] = 10
        plain.keep(only: [2], at: 1, retainingFor: nil)
        plain.keep(only: [1], at: 2, retainingFor: nil)
        #expect(plain[1] == nil && plain.count == 0)

        var memory = PerFaceMemory<Int>()
        memory[1] = 10
        memory[2] = 20
        memory.keep(only: [2], at: 5, retainingFor: 60)  // 1 is lost: parked
        #expect(memory[1] == nil && memory[2] == 20 && memory.count == 2)
        memory.keep(only: [1, 2], at: 30, retainingFor: 60)  // 1 is back: its state with it
        #expect(memory[1] == 10)
        memory.keep(only: [], at: 40, retainingFor: 60)
        memory.keep(only: [], at: 101, retainingFor: 60)  // over a minute since both were lost
        #expect(memory.count == 0)
        memory[3] = 30
        memory.reset()
        #expect(memory[3] == nil)
    }

    @Test func options_areValidated_namingTheSetting() throws {
        let defaults = try ReidentificationOptions()
        #expect(defaults.window == 600 && defaults.samples == 3 && defaults.threshold == 0.53)
        for (make, name) in [
            ({ _ = try ReidentificationOptions(window: 0) }, "window"),
            ({ _ = try ReidentificationOptions(threshold: 3) }, "threshold"),
            ({ _ = try ReidentificationOptions(samples: 0) }, "samples"),
            ({ _ = try ReidentificationOptions(decisionTime: -1) }, "decisionTime"),
            ({ _ = try ReidentificationOptions(maximumYaw: 200) }, "yaw"),
            ({ _ = try ReidentificationOptions(minimumSharpness: -1) }, "sharpness"),
        ] as [(() throws -> Void, String)] {
            let error = #expect(throws: MienError.self, performing: make)
            #expect(error?.code == .invalidOptions && error?.message.contains(name) == true, "\(name)")
        }
    }

    @Test func sharpness_fallsWhenTheChipIsBlurred() throws {
        // Stripes 3 pixels wide, then the same averaged over 9 pixels across.
        let side = 150
        var sharp = [UInt8](repeating: 0, count: side * side * 3)
        var blurred = sharp
        for y in 0..<side {
            for x in 0..<side {
                let value: UInt8 = (x / 3) % 2 == 0 ? 60 : 200
                var sum = 0
                for dx in -4...4 { sum += ((x + dx + 300) / 3) % 2 == 0 ? 60 : 200 }
                for c in 0..<3 {
                    sharp[(y * side + x) * 3 + c] = value
                    blurred[(y * side + x) * 3 + c] = UInt8(sum / 9)
                }
            }
        }
        let crisp = ChipSharpness.of(try Frame(width: side, height: side, pixels: sharp))
        let soft = ChipSharpness.of(try Frame(width: side, height: side, pixels: blurred))
        #expect(crisp > 50 && soft < crisp / 3, "\(crisp) vs \(soft)")
    }
}
