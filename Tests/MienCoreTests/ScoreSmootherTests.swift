import MienCore
import Testing

@Suite("Score smoothing")
struct ScoreSmootherTests {
    @Test func aStep_isCovered63PercentAfterOneTimeConstant_atAnyFrameRate() throws {
        for fps in [30.0, 10.0, 4.0] {
            var smoother = try ScoreSmoother(timeConstant: 0.5)
            _ = smoother.smooth(0, at: 0)
            var last: Double?
            for index in 1...Int(fps * 0.5) { last = smoother.smooth(100, at: Double(index) / fps) }
            #expect(abs((last ?? 0) - 63.21) < 0.01, "\(fps) fps: \(last ?? -1)")
        }
    }

    @Test func framesWithoutAScore_keepTheValue_andTheNextScoreWeighsTheWholeGap() throws {
        var smoother = try ScoreSmoother(timeConstant: 1)
        #expect(smoother.smooth(40, at: 0) == 40)
        #expect(smoother.smooth(nil, at: 0.5) == nil)
        let after = smoother.smooth(100, at: 1) ?? -1
        #expect(abs(after - (40 + 60 * 0.6321)) < 0.01)
        #expect(smoother.smooth(0, at: 1) == after, "time that does not advance changes nothing")
        smoother.reset()
        #expect(smoother.smooth(10, at: 0.2) == 10)
        #expect(throws: MienError.self) { try ScoreSmoother(timeConstant: 0) }
    }
}
