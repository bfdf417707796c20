import Foundation
import MienCore
import Testing

@testable import Mien

/// `eyesClosed` and `talking`: what a stream's tracker makes of a face's recent frames.
@Suite("The viewer's activity in a stream")
struct ViewerActivityTests {
    /// A face with both eyes' closure and the mouth's opening (`mouthOpen`; `jawDrop` 0).
    private func face(eyes: Double = 2, mouth: Double = 0, flags: [QualityFlag] = []) -> FaceResult {
        var face = FaceResult(
            detection: FaceDetection(
                bounds: Rect(x: 10, y: 10, width: 100, height: 100),
                keypoints: Array(repeating: Point(x: 50, y: 50), count: 6), confidence: 0.9),
            faceId: 0)
        face.keypoints = nil
        face.flags = flags
        face.expressions = Expressions(
            scores: Scores([.eyeClosure: eyes, .mouthOpen: mouth, .jawDrop: 0]), left: Scores([.eyeClosure: eyes]),
            right: Scores([.eyeClosure: eyes]))
        return face
    }

    /// Each face's `measure` after the tracker saw it, at `rate` frames a second.
    private func run(_ faces: [FaceResult], _ measure: String, rate: Double = 10) throws -> [Double?] {
        var tracker = try EpisodeTracker(settings: .off, facesReturn: false)
        return faces.enumerated().map { index, face in
            var result = DetectorResult(
                frameIndex: index, timestamp: Double(index) / rate, faces: [0: face], lost: [])
            _ = tracker.update(&result)
            #expect(result.episodes.isEmpty, "episodes are off")
            return result.faces?[0]?.measures[measure]
        }
    }

    @Test func aBlink_isNotEyesClosed_butAClosureLongerThanHalfASecondIs() throws {
        // 8 fps (exact times): 0.375 s shut (a blink), open, then 1.25 s shut: flagged from the frame past 0.5 s
        // until the eyes open.
        let eyes: [Double] = [0, 80, 80, 80, 0, 0] + Array(repeating: 90, count: 10) + [50, 20, 0]
        let closed = try run(eyes.map { face(eyes: $0) }, "eyesClosed", rate: 8)
        #expect(closed.prefix(6).allSatisfy { $0 == 0 }, "a blink of 0.375 s: \(closed)")
        // Shut from frame 6 (0.75 s): frames 11 (1.375 s) to 15, and 16 (50: not yet below off), are 100.
        #expect(closed[6...10].allSatisfy { $0 == 0 } && closed[11...16].allSatisfy { $0 == 100 }, "\(closed)")
        #expect(closed[17] == 0 && closed[18] == 0, "open again below 30: \(closed)")
    }

    @Test func aMouthOpeningAndShuttingAsSpeech_isTalking_aHeldExpressionIsNot() throws {
        // 10 fps: a mouth opening and shutting every 0.2 s for 3 s, then a smile's opening held for 3 s.
        let speech = (0..<30).map { $0 % 2 == 0 ? 5.0 : 40.0 }
        let held = [5.0, 20, 40, 45, 45] + Array(repeating: 45, count: 25)
        let values = try run((speech + held).map { face(mouth: $0) }, "talking")
        #expect(values.prefix(14).allSatisfy { $0 == nil }, "absent before a whole window: \(values.prefix(16))")
        #expect(values[15..<30].allSatisfy { $0 == 100 }, "\(values[14..<30])")
        #expect(values[48..<60].allSatisfy { $0 == 0 }, "a held opening: \(values[45..<60])")
    }

    @Test func reversals_countOnlySwingsOfTheirSize() {
        #expect(ViewerActivity.reversals(in: [0, 20, 0, 20, 0]) == 3)
        #expect(ViewerActivity.reversals(in: [0, 10, 0, 10, 0]) == 0, "10 points is below a swing")
        #expect(ViewerActivity.reversals(in: [0, 5, 10, 15, 20, 25, 30]) == 0, "one rise")
        #expect(ViewerActivity.reversals(in: [30, 0, 30]) == 1)
        #expect(ViewerActivity.reversals(in: []) == 0)
    }

    @Test func flaggedFrames_haveNoActivity() throws {
        let values = try run([face(eyes: 90, flags: [.headTurned])], "eyesClosed")
        #expect(values == [nil])
    }
}
