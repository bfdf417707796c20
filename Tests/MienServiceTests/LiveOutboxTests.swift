import Foundation
import Mien
import MienTesting
import Testing

@testable import MienService

/// The bounded outgoing buffer of a live socket: what happens when a client reads too slowly.
@Suite("Live sessions: the outgoing messages")
struct LiveOutboxTests {
    @Test func clientThatDoesNotRead_getsWhatWasQueued_thenTheOutboxCloses() async {
        let outbox = LiveOutbox(capacity: 3)
        #expect((1...3).allSatisfy { outbox.send("m\($0)") })
        #expect(!outbox.overflowed)
        // The fourth message finds 3 unread: the outbox closes rather than skip or grow.
        #expect(!outbox.send("m4"))
        #expect(outbox.overflowed)
        #expect(!outbox.send("m5"), "nothing after the overflow")
        var received: [String] = []
        for await message in outbox.messages { received.append(message) }
        #expect(received == ["m1", "m2", "m3"], "the messages queued before, in order, then the end")
    }

    @Test func clientThatReads_neverOverflows() async {
        let outbox = LiveOutbox(capacity: 2)
        let reader = Task {
            var count = 0
            for await _ in outbox.messages {
                count += 1
                outbox.written()
            }
            return count
        }
        // The sender waits while `capacity` are unread, as a socket that keeps up lets it.
        for index in 0..<200 {
            while outbox.waitingCount >= 2 { await Task.yield() }
            #expect(outbox.send("m\(index)"), "refused at \(index)")
        }
        outbox.close()
        #expect(await reader.value == 200)
    }

    @Test func sessionClosedForReadingTooSlowly_analysesNoMoreFrames() async throws {
        let metrics = ServiceMetrics()
        let outbox = LiveOutbox(capacity: 2)
        let session = LiveSession(
            id: "slow", limits: try ServiceOptions(port: 0), models: try ModelStore(), metrics: metrics, outbox: outbox)
        try await session.begin(AnalysisSettings(rate: 100))
        // `ready` and one more wait unread; the next message overflows: the socket is to be closed with 1008.
        #expect(outbox.send("unread"))
        #expect(!outbox.send("one too many") && outbox.overflowed)
        var bits = (100.0).bitPattern.littleEndian
        let header = withUnsafeBytes(of: &bits) { Array($0) }
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        session.receiveFrame(header + jpeg)
        try await Task.sleep(for: .seconds(2))
        await session.end()
        let exposition = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(exposition.contains("mien_frames_analysed_total 0"), "a frame was analysed for nobody")
    }
}
