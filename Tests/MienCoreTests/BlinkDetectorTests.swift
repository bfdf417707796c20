import MienCore
import Testing

@Suite("Blinks and winks from the eyes' closure")
struct BlinkDetectorTests {
    /// Runs 25 fps frames of (left, right) closures; returns the blinks found.
    private func blinks(_ frames: [(Double?, Double?)], options: BlinkOptions = .standard) -> [Blink] {
        var detector = BlinkDetector(options: options)
        var found: [Blink] = []
        for (index, eyes) in frames.enumerated() {
            found += detector.update(left: eyes.0, right: eyes.1, at: Double(index) / 25)
        }
        return found
    }

    private let open: (Double?, Double?) = (2, 3)

    @Test func aShortClosureOfBothEyes_isOneBlink_reportedOnceTheEyesOpen() throws {
        let frames = [open, open, (45, 50), (95, 90), (80, 85), (20, 25)] + Array(repeating: open, count: 6)
        let found = blinks(frames)
        try #require(found.count == 1)
        #expect(found[0].eyes == .both)
        #expect(abs(found[0].episode.onset - 0.08) < 1e-9)
        #expect(abs(found[0].episode.offset - 0.2) < 1e-9)
        #expect(found[0].episode.apexValue == 95)
    }

    @Test func anUnevenBlink_followsTheMoreClosedEye() {
        // Seen at an angle, one eye reads 45 and the other 13 (as in a development video): still a blink.
        let found = blinks([open, (25, 9), (45, 13), open, open, open, open])
        #expect(found.map(\.eyes) == [.both])
    }

    @Test func oneEyeClosedWhileTheOtherStaysOpen_isAWinkOfThatEye() {
        #expect(blinks([open, (90, 2), (95, 3), open, open, open, open]).map(\.eyes) == [.left])
        #expect(blinks([open, (1, 88), (2, 97), open, open, open, open]).map(\.eyes) == [.right])
    }

    @Test func aLongClosure_isNotABlink() {
        let shut = Array(repeating: (Double?(95), Double?(96)), count: 20)  // 0.8 s
        #expect(blinks([open] + shut + [open, open, open, open]).isEmpty)
    }

    @Test func unmeasuredFrames_suspendAClosure_andTheFaceEndingCutsItShort() {
        // A frame without a score inside a blink does not split it.
        #expect(blinks([open, (90, 90), (nil, nil), (90, 92), open, open, open, open]).count == 1)
        var detector = BlinkDetector(options: .standard)
        _ = detector.update(left: 90, right: 90, at: 0)
        detector.end(at: 0.04)
        #expect(detector.update(left: 2, right: 2, at: 0.5).isEmpty, "a closure cut short is not a blink")
    }

    @Test func options_areValidated() {
        #expect(throws: MienError.self) { try BlinkOptions(maximumDuration: 0) }
        #expect(throws: MienError.self) { try BlinkOptions(openBelow: 120) }
        #expect(throws: MienError.self) { try BlinkOptions(rateWindow: 10, rateWarmUp: 20) }
    }
}
