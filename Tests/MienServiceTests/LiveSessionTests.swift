import Foundation
import Mien
import MienTesting
import Testing

@testable import MienService

/// A live session's detector lifecycle: options messages and restarts after a failure take turns.
///
/// Ten minutes, as the other suites that load the models: alone it takes under a second, but in `make test`'s
/// parallel run beside the CI's background builds its model loads queued behind everyone else's for over three.
@Suite("Live sessions: one detector at a time", .timeLimit(.minutes(10)))
struct LiveSessionTests {
    func session() throws -> LiveSession {
        LiveSession(
            id: "turns", limits: try ServiceOptions(port: 0), models: try ModelStore(), metrics: ServiceMetrics(),
            outbox: LiveOutbox(capacity: 1000))
    }

    @Test func twoOptionsAtOnce_thenAFailure_leaveExactlyOneDetectorRunning() async throws {
        let session = try session()
        // Two options messages at once (two begins awaiting model loads side by side): before issue 68 both
        // found no detector to stop, both started one, and the second stored replaced the first unstopped.
        async let first: Void = session.begin(AnalysisSettings(rate: 10))
        async let second: Void = session.begin(AnalysisSettings(rate: 20))
        _ = try await (first, second)
        var counts = session.detectorCounts
        #expect(counts.started == 2 && counts.stopped == 1, "\(counts)")
        // The running detector fails; at the same moment another options message arrives.
        let failed = try #require(session.current?.generation)
        session.failed(MienError(.internalFailure, "scripted failure", input: "live frame"), generation: failed)
        try await session.begin(AnalysisSettings(rate: 15))
        // The restart after the failure finds its detector already replaced, or replaces it in its own turn.
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            counts = session.detectorCounts
            if counts.started - counts.stopped == 1 && session.current?.generation != failed { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))
        counts = session.detectorCounts
        #expect(counts.started - counts.stopped == 1, "\(counts)")
        #expect(session.current?.isOpen == true && session.current?.generation != failed)
        await session.end()
        counts = session.detectorCounts
        #expect(counts.started == counts.stopped, "\(counts)")
    }
}
