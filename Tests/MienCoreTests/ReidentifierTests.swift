import MienCore
import Testing

/// `Reidentifier`'s decisions, driven with scripted faces and a fake network whose "identity" is the grey
/// level at the face's centre.
@Suite("Re-identifier")
struct ReidentifierTests {
    /// Reads the grey level under the chip's centre: that is the face's identity.
    final class GreyRecognizer: FaceRecognizing {
        var descriptors = 0

        func chip(of frame: Frame, chipFromFrame: AffineTransform) throws -> Frame {
            let side = RecognitionChip.side
            let centre =
                chipFromFrame.inverted?.apply(Point(x: Double(side) / 2, y: Double(side) / 2)) ?? Point(x: 0, y: 0)
            let grey = UInt8(frame.luma(x: Int(centre.x), y: Int(centre.y)).rounded())
            // Stripes (sharp), with the identity in the first pixel.
            var pixels = (0..<(side * side)).flatMap { i -> [UInt8] in
                let value: UInt8 = (i % side / 3) % 2 == 0 ? 40 : 220
                return [value, value, value]
            }
            pixels[0] = grey
            return try Frame(width: side, height: side, pixels: pixels)
        }

        func descriptor(ofChip chip: Frame) throws -> FaceDescriptor {
            descriptors += 1
            return try FaceDescriptor(values: [Float(chip.pixels[0]) / 100] + Array(repeating: 0, count: 127))
        }
    }

    /// A frame of grey 0 with each face's box filled with its person's grey level.
    private func frame(at time: Double, _ people: [(box: Rect, grey: UInt8)]) throws -> Frame {
        let width = 400
        let height = 200
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for (box, grey) in people {
            for y in Int(box.minY)..<Int(box.maxY) {
                for x in Int(box.minX)..<Int(box.maxX) {
                    for c in 0..<3 { pixels[(y * width + x) * 3 + c] = grey }
                }
            }
        }
        var frame = try Frame(width: width, height: height, pixels: pixels)
        frame.timestamp = time
        return frame
    }

    /// A tracked face over `box`: a grid mesh (non-degenerate 68 points inside the box), frontal pose.
    private func face(_ trackId: Int, _ box: Rect, yaw: Double = 0) -> TrackedFace {
        let points = (0..<478).map { i in
            Point3D(
                x: box.minX + 5 + Double(i % 22) * (box.width - 10) / 21,
                y: box.minY + 5 + Double(i / 22) * (box.height - 10) / 21, z: 0)
        }
        let mesh = FaceMesh(
            points: points, presence: 1, region: FaceRegion(center: box.center, size: box.width, rotation: 0))
        return TrackedFace(
            faceId: trackId, bounds: box, confidence: 1, mesh: mesh,
            pose: HeadPose(yaw: yaw, pitch: 0, roll: 0, interocularDistance: 60))
    }

    private let left = Rect(x: 20, y: 20, width: 140, height: 140)
    private let right = Rect(x: 220, y: 20, width: 140, height: 140)
    /// Identity grey levels: A and A' are 0.02 apart as descriptors, B is far.
    private let greyA: UInt8 = 100
    private let greyA2: UInt8 = 102
    private let greyB: UInt8 = 200

    @Test func firstFace_isPublishedAtOnce_andAReturnGetsItsIDBack() throws {
        let recognizer = GreyRecognizer()
        let reid = Reidentifier(options: try ReidentificationOptions(), recognizer: recognizer)
        // A appears: nothing to compare with, so no delay.
        var out = try reid.resolve(
            faces: [face(0, left)], events: [.found(faceId: 0)], in: frame(at: 0, [(left, greyA)]))
        #expect(out.faces.map(\.faceId) == [0] && out.events == [.found(faceId: 0)])
        for t in 1...4 {
            _ = try reid.resolve(faces: [face(0, left)], events: [], in: frame(at: Double(t) * 0.04, [(left, greyA)]))
        }
        #expect(recognizer.descriptors == 3, "only the track's first three good frames are described")
        out = try reid.resolve(faces: [], events: [.lost(faceId: 0)], in: frame(at: 1, []))
        #expect(out.events == [.lost(faceId: 0)] && reid.remembered == 1)
        // A comes back as tracker track 5, a little different: held back for two frames, then returned.
        for t in 0..<2 {
            out = try reid.resolve(
                faces: [face(5, right)], events: t == 0 ? [.found(faceId: 5)] : [],
                in: frame(at: 2 + Double(t) * 0.04, [(right, greyA2)]))
            #expect(out.faces.isEmpty && out.events.isEmpty)
        }
        out = try reid.resolve(faces: [face(5, right)], events: [], in: frame(at: 2.08, [(right, greyA2)]))
        #expect(out.faces.map(\.faceId) == [0] && out.events == [.returned(faceId: 0)] && reid.remembered == 0)
        #expect(recognizer.descriptors == 6)
    }

    @Test func someoneElse_getsANewID_andTwoNewFaces_takeTheNearestLostFaces() throws {
        let reid = Reidentifier(options: try ReidentificationOptions(samples: 1), recognizer: GreyRecognizer())
        _ = try reid.resolve(
            faces: [face(0, left), face(1, right)], events: [.found(faceId: 0), .found(faceId: 1)],
            in: frame(at: 0, [(left, greyA), (right, greyB)]))
        _ = try reid.resolve(faces: [], events: [.lost(faceId: 0), .lost(faceId: 1)], in: frame(at: 1, []))
        // They come back on the other sides, at once: each gets its own ID, not the other's.
        var out = try reid.resolve(
            faces: [face(2, left), face(3, right)], events: [.found(faceId: 2), .found(faceId: 3)],
            in: frame(at: 2, [(left, greyB), (right, greyA2)]))
        #expect(Set(out.events) == [.returned(faceId: 0), .returned(faceId: 1)])
        #expect(out.faces.map(\.faceId) == [0, 1] && out.faces[0].bounds == right && out.faces[1].bounds == left)
        // A stranger while both are seen: a new ID (nothing lost to match).
        out = try reid.resolve(
            faces: [face(2, left), face(3, right), face(4, Rect(x: 170, y: 170, width: 30, height: 30))],
            events: [.found(faceId: 4)], in: frame(at: 2.04, [(left, greyB), (right, greyA2)]))
        #expect(out.events == [.found(faceId: 2)])
    }

    @Test func unusableFaces_areDecidedAfterTheDecisionTime_asNew() throws {
        let recognizer = GreyRecognizer()
        let reid = Reidentifier(options: try ReidentificationOptions(), recognizer: recognizer)
        _ = try reid.resolve(faces: [face(0, left)], events: [.found(faceId: 0)], in: frame(at: 0, [(left, greyA)]))
        _ = try reid.resolve(faces: [], events: [.lost(faceId: 0)], in: frame(at: 0.1, []))
        let before = recognizer.descriptors
        // A again, but turned 40° away: never described; held back 1 s, then a new face.
        var time = 0.2
        var out: (faces: [TrackedFace], events: [FaceEvent]) = ([], [])
        var events: [FaceEvent] = [.found(faceId: 1)]
        while out.events.isEmpty && time < 3 {
            out = try reid.resolve(
                faces: [face(1, left, yaw: 40)], events: events, in: frame(at: time, [(left, greyA)]))
            events = []
            time += 0.1
        }
        #expect(out.events == [.found(faceId: 1)] && recognizer.descriptors == before)
        #expect(abs(time - 1.3) < 0.05, "decided once 1 s had passed (at \(time - 0.1) s)")
    }

    @Test func lostFaces_areForgottenAfterTheWindow_andOnReset() throws {
        let reid = Reidentifier(
            options: try ReidentificationOptions(window: 60, samples: 1), recognizer: GreyRecognizer())
        _ = try reid.resolve(faces: [face(0, left)], events: [.found(faceId: 0)], in: frame(at: 0, [(left, greyA)]))
        _ = try reid.resolve(faces: [], events: [.lost(faceId: 0)], in: frame(at: 1, []))
        // Back 61 s after it was lost: forgotten, so a new face at once.
        var out = try reid.resolve(
            faces: [face(1, left)], events: [.found(faceId: 1)], in: frame(at: 62, [(left, greyA)]))
        #expect(out.events == [.found(faceId: 1)] && reid.remembered == 0)
        _ = try reid.resolve(faces: [], events: [.lost(faceId: 1)], in: frame(at: 63, []))
        #expect(reid.remembered == 1)
        reid.reset()
        #expect(reid.remembered == 0)
        out = try reid.resolve(faces: [face(0, left)], events: [.found(faceId: 0)], in: frame(at: 0, [(left, greyA)]))
        #expect(out.events == [.found(faceId: 0)])
    }
}
