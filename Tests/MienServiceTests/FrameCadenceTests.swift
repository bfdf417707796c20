import Foundation
import MienCore
import Testing

@testable import MienService

/// Issue 94 item 4: a slot is kept by frames at a quarter of the rate asked over the last 10 s, not by any trickle;
/// driven here by instants the test makes, with no waiting.
@Suite("The frame rule that keeps a slot")
struct FrameCadenceTests {
    static let start = ContinuousClock.now

    /// Frames at `times` (seconds from the start); the shortfalls seen once a second from 0 to `until` s.
    static func run(
        times: [Double], asked: [(Double, Double)] = [(0, 10)], hidden: [(Double, Bool)] = [], until: Double
    ) -> [(Double, FrameCadence.Shortfall)] {
        let cadence = FrameCadence(window: .seconds(10))
        var events: [(Double, Int)] = times.map { ($0, 0) } + asked.map { ($0.0, 1) } + hidden.map { ($0.0, 2) }
        events += stride(from: 0.0, through: until, by: 1).map { ($0 + 0.0001, 3) }
        events.sort { $0.0 < $1.0 }
        var found: [(Double, FrameCadence.Shortfall)] = []
        for (time, kind) in events {
            let instant = start + .milliseconds(Int(saturating: time * 1000))
            switch kind {
            case 0: cadence.arrived(at: instant, time: time)
            case 1: cadence.asked(rate: asked.first { $0.0 == time }?.1 ?? 10, at: instant)
            case 2: cadence.hidden(hidden.first { $0.0 == time }?.1 ?? false, at: instant)
            default: if let short = cadence.trickling(at: instant) { found.append((time, short)) }
            }
        }
        return found
    }

    @Test func aTrickleEvery1point9s_andBurstsOf11Every19s_loseTheirSlotAfterOneWindow() {
        let trickle = Self.run(times: Array(stride(from: 0, through: 150, by: 1.9)), until: 150)
        #expect(trickle.first?.0.rounded() == 10, "closed a window after its first frame: \(trickle.prefix(1))")
        #expect(trickle.first?.1 == FrameCadence.Shortfall(frames: 6, needed: 25, rate: 10))
        let bursts = stride(from: 0.0, through: 77, by: 19).flatMap { start in (0..<11).map { start + Double($0) * 0.1 }
        }
        #expect(Self.run(times: bursts, until: 77).first?.0.rounded() == 10)
    }

    @Test func aSteadyPageAtAThird_keepsItsSlot_andTheNeedFollowsTheRateAsked() {
        // 3 frames a second against 10 asked: 30 in any 10 s, 25 needed.
        #expect(Self.run(times: Array(stride(from: 0, through: 60, by: 1.0 / 3)), until: 60).isEmpty)
        // 1.5 a second: short at 10 asked (15 of 25), enough once the server has asked 5 (12 needed) for a whole
        // window (the lowest rate of the window counts, and 10 was asked until 20 s).
        let slow = Array(stride(from: 0, through: 60, by: 1.0 / 1.5))
        let found = Self.run(times: slow, asked: [(0, 10), (20, 5)], until: 60)
        #expect(found.contains { $0.0 < 20 } && found.allSatisfy { $0.0 < 31 }, "\(found.map(\.0))")
        #expect(found.allSatisfy { $0.1.needed == 25 && (15...16).contains($0.1.frames) }, "\(found.map(\.1))")
    }

    @Test func aHiddenPage_isNotChecked_untilAWindowAfterItIsShownAgain() {
        // Frames stop while hidden from 12 to 30 s (the page sends none the server counts), then go on.
        let times = Array(stride(from: 0, through: 12, by: 0.1)) + Array(stride(from: 30, through: 60, by: 0.1))
        #expect(Self.run(times: times, hidden: [(12, true), (30, false)], until: 60).isEmpty)
        // Not said hidden: the same gap closes it once fewer than 2.5 s of its frames are left in the window.
        #expect(Self.run(times: times, until: 60).first?.0.rounded() == 20)
    }
}

/// Issue 94 item 5: a framing check is bounded in time whatever its socket sends, and in count.
@Suite("Framing sockets' bounds")
struct FramingBoundsTests {
    @Test func aFramingCheck_endsInTimeWhateverItSends_andAPassedOneWaitsFiveMinutesAtMost() {
        let opened = ContinuousClock.now
        let deadline = FramingDeadline(opened: opened, timeoutSeconds: 60)
        #expect(!deadline.expired(at: opened + .seconds(74), passedAt: nil))
        #expect(deadline.expired(at: opened + .seconds(76), passedAt: nil))
        // Passed at 20 s: Start watching may wait 5 minutes.
        let passed = opened + .seconds(20)
        #expect(!deadline.expired(at: passed + .seconds(299), passedAt: passed))
        #expect(deadline.expired(at: passed + .seconds(301), passedAt: passed))
    }

    @Test func framingChecks_openAtOnceAreCapped_theNextOneWaits_andAStimulusIsNotHeldByTheCap() {
        let budget = AnalysisBudget(framesPerSecond: 40)  // 16 checks (twice 8 at 5 a second; 16 at least)
        #expect(budget.maximumFramingChecks == 16)
        for _ in 0..<16 {
            let admitted = budget.admit(
                UUID(), rate: 5, floor: 5, priority: false, flowing: false, framing: true, onRate: { _ in })
            guard case .admitted = admitted else {
                Issue.record("a framing check under the cap waited: \(admitted)")
                return
            }
        }
        let extra = UUID()
        #expect(
            budget.admit(extra, rate: 5, floor: 5, priority: false, flowing: false, framing: true, onRate: { _ in })
                == .queued(position: 1, waiting: 1))
        budget.leave(extra)
        let stimulus = budget.admit(UUID(), rate: 10, floor: 5, priority: true, onRate: { _ in })
        guard case .admitted = stimulus else {
            Issue.record("a stimulus was held by the framing cap: \(stimulus)")
            return
        }
    }
}
