import Foundation
import MienCore
import MienTesting
import Testing

@testable import Mien
@_spi(Fuzzing) @testable import MienStudies

/// Issue 94 item 1: no number a participant sends can crash what reads it.
///
/// The fuzz target's committed inputs
/// (`Fuzz/regressions/participant_messages`, the 1e19 timing among them) and a seeded stream of their mutations go
/// through `ParticipantMessageFuzz` in every `swift test`; libFuzzer runs the same target longer
/// (`make fuzz-messages`).
@Suite("What participants send")
struct ParticipantMessageFuzzTests {
    static let inputs = SampleMedia.repositoryRoot.appendingPathComponent("Fuzz/regressions/participant_messages")

    @Test func theCommittedInputs_andTwentyThousandMutations_neverTrap() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.inputs.path).sorted()
        let seeds = try names.map { [UInt8](try Data(contentsOf: Self.inputs.appendingPathComponent($0))) }
        #expect(seeds.count >= 8, "\(names)")
        for seed in seeds { ParticipantMessageFuzz.run(seed) }
        // Mutations as libFuzzer's simplest: a byte changed, a number's digits replaced by an extreme, a slice
        // dropped or doubled. A trap ends the test process: reaching the end is the assertion.
        var generator = SeededGenerator(seed: 94)
        func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &generator) }
        let extremes = ["1e19", "-1e308", "9223372036854775807", "1e-320", "-0", "NaN", "18446744073709551616"]
        for index in 0..<20_000 {
            var bytes = seeds[index % seeds.count]
            switch below(4) {
            case 0 where bytes.count > 1:
                bytes[1 + below(bytes.count - 1)] = UInt8(truncatingIfNeeded: below(256))
            case 1:
                let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
                let numbers = text.ranges(of: /-?[0-9][0-9.e+-]*/)
                guard let range = numbers.dropFirst(below(max(numbers.count, 1))).first else { continue }
                let replaced = text.replacingCharacters(
                    in: range, with: extremes[below(extremes.count)])
                bytes = [bytes[0]] + Array(replaced.utf8)
            case 2 where bytes.count > 2:
                let start = 1 + below(bytes.count - 1)
                bytes.removeSubrange(start..<min(bytes.count, start + 1 + below(8)))
            default:
                bytes += bytes.dropFirst()
            }
            ParticipantMessageFuzz.run(bytes)
        }
    }

    /// A timing of 1e19 is refused where it arrives, and no figure a manifest carries traps in words.
    ///
    /// Before: accepted, then `Int(1e19)` in the viewing rules' words trapped.
    @Test func aTimingOf1e19_isRefusedWhereItArrives_andNoFigureTraps() {
        var log = ViewingLog()
        let told = log.receive(
            #"{"type":"viewing","timing":{"method":"frameCallback","frames":40,"median":12,"p95":1e19,"max":1e19}}"#,
            duration: 20)
        #expect(told?.contains("milliseconds (0 to 60000)") == true, "\(told ?? "kept")")
        #expect(log.viewing.timing == nil && log.viewing.refused == 1)
        var figures = ViewingFigures(
            hiddenSeconds: 1e19, outOfFullscreenSeconds: 0, unfocusedSeconds: 0, stalls: 0, stallSeconds: 1e300,
            seeks: 0, cameraFps: 1e19, timingSpreadMs: 1e19)
        figures.stallSpans = [0...1e19]
        #expect(!ViewingRules.standard.broken(by: figures, duration: 20).isEmpty)
        #expect(ResultTable.number(1e19) == "1e+19" && ResultTable.number(12) == "12")
        #expect(StudyRecordingReader.milliseconds(1e300) == Int(Int.exactDoubleLimit))
        #expect(Int(checked: .nan) == nil && Int(checked: 1e19) == nil && Int(checked: 2.5) == 3)
        #expect(Int(saturating: -.infinity) == -Int(Int.exactDoubleLimit) && Int(saturating: .nan) == 0)
    }
}
