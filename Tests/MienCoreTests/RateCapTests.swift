import MienCore
import Testing

@Suite("Rate cap")
struct RateCapTests {
    /// Timestamps of `count` frames at `fps`, each moved by up to ±`jitter` seconds (a sender's clock stamping
    /// frames a timer sends), from a fixed seed.
    static func stamps(fps: Double, count: Int, jitter: Double, seed: UInt64 = 7) -> [Double] {
        var state = seed
        return (0..<count).map { index in
            // SplitMix64: a fixed, portable sequence.
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            let unit = Double((mixed ^ (mixed >> 31)) >> 11) / Double(1 << 53)
            return Double(index) / fps + (unit * 2 - 1) * jitter
        }
    }

    static func admitted(_ stamps: [Double], rate: Double) -> [Double] {
        var cap = RateCap(rate: rate)
        return stamps.filter { cap.admits($0) }
    }

    /// The most frames let through in any window of `seconds`.
    static func mostIn(_ seconds: Double, _ times: [Double]) -> Int {
        var most = 0
        var start = 0
        for (end, time) in times.enumerated() {
            while time - times[start] >= seconds { start += 1 }
            most = max(most, end - start + 1)
        }
        return most
    }

    @Test func jittered30fps_atRate30_analysesAlmostEveryFrame() {
        for jitter in [0.0, 0.002, 0.008] {
            let stamps = Self.stamps(fps: 30, count: 300, jitter: jitter)
            let kept = Self.admitted(stamps, rate: 30)
            #expect(Double(kept.count) >= 0.95 * 300, "jitter \(jitter): \(kept.count) of 300")
        }
    }

    @Test func jittered30fps_atRate15_givesFifteenASecond_neverMore() {
        for jitter in [0.0, 0.002, 0.008] {
            let stamps = Self.stamps(fps: 30, count: 300, jitter: jitter)
            let kept = Self.admitted(stamps, rate: 15)
            let perSecond = Double(kept.count) / 10
            #expect((14...15.5).contains(perSecond), "jitter \(jitter): \(perSecond) per second")
            #expect(Self.mostIn(1, kept) <= 16, "jitter \(jitter): at most the rate (+1 at the window's edge)")
        }
    }

    @Test func exactTimestamps_keepEveryNthFrame() {
        let stamps = (0..<60).map { Double($0) / 30 }
        #expect(Self.admitted(stamps, rate: 5) == stride(from: 0, to: 60, by: 6).map { Double($0) / 30 })
        #expect(Self.admitted(stamps, rate: 15).count == 30)
        #expect(Self.admitted(stamps, rate: 30).count == 60)
        #expect(Self.admitted(stamps, rate: 31).count == 60, "a cap above the source's rate keeps every frame")
    }

    @Test func aPause_isNotFollowedByABurst() {
        // 30 fps for 1 s, nothing for 2 s, 30 fps again, capped at 10.
        let stamps = (0..<30).map { Double($0) / 30 } + (90..<120).map { Double($0) / 30 }
        let kept = Self.admitted(stamps, rate: 10)
        #expect(Self.mostIn(1, kept) <= 11)
        #expect(kept.count == 20, "\(kept)")
    }

    @Test func reset_startsANewGrid() {
        var cap = RateCap(rate: 1)
        let first = cap.admits(10)
        let early = cap.admits(10.2)
        cap.reset()
        let afterReset = cap.admits(0)
        #expect(first && !early)
        #expect(afterReset, "after a reset the first frame is processed whatever its time")
    }
}
