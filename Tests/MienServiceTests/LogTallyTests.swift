import MienCore
import Testing

@testable import MienService

/// Issue 78: a flood of refusals is a few lines with counts, a single one is logged at once.
@Suite("Log lines of floods, counted")
struct LogTallyTests {
    final class Lines: Sendable {
        let lines = Locked<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func aFlood_isItsFirstLineAndACount_perKindAndInterval() {
        let lines = Lines()
        let tally = LogTally(interval: .seconds(60), log: lines.append)
        let start = ContinuousClock.now
        for index in 0..<980 {
            tally.note("ad rate", "study ad: a consent was refused", at: start + .milliseconds(index))
        }
        tally.note("ad full", "study ad: the study is full", at: start + .seconds(1))
        #expect(lines.all == ["study ad: a consent was refused", "study ad: the study is full"])
        // The interval ends: its count is logged; a kind seen once adds nothing.
        tally.flush(at: start + .seconds(61))
        #expect(lines.all.count == 3)
        #expect(lines.all.last == "study ad: a consent was refused; 979 more like it in the 61 s since")
        // A new interval logs its first line at once again, and the server's stop logs what is counted.
        tally.note("ad rate", "study ad: a consent was refused", at: start + .seconds(70))
        tally.note("ad rate", "study ad: a consent was refused", at: start + .seconds(71))
        tally.flush(at: start + .seconds(72), all: true)
        #expect(
            lines.all.suffix(2) == [
                "study ad: a consent was refused", "study ad: a consent was refused; 1 more like it in the 2 s since",
            ])
    }
}
