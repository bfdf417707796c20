import Foundation
import MienCore
import Testing

@testable import Mien
@testable import MienStudies

/// Which faces of a webcam recording are the participant's: a face that leaves the picture and comes back has a new
/// ID, and is still the participant; someone seen beside them is not.
@Suite("The participant's faces in a recording")
struct StudyViewerTests {
    /// A face watching the screen (`onScreen` 100) with joy at `joy`.
    private func face(_ id: Int, joy: Double) -> FaceResult {
        var face = FaceResult(
            detection: FaceDetection(
                bounds: Rect(x: 10, y: 10, width: 100, height: 100),
                keypoints: Array(repeating: Point(x: 50, y: 50), count: 6), confidence: 0.9),
            faceId: id)
        face.keypoints = nil
        face.emotions = Scores([.joy: joy])
        face.measures["onScreen"] = 100
        return face
    }

    /// 3 s at 10 frames a second, each frame's faces from `faces(time)`, read as one row of a 3-s stimulus.
    private func read(_ faces: (Double) -> [Int: FaceResult]) throws -> ParticipantSeries {
        let encoder = JSONEncoder()
        var lines = Data()
        for index in 0..<30 {
            let time = Double(index) / 10
            lines += try encoder.encode(DetectorResult(frameIndex: index, timestamp: time, faces: faces(time)))
            lines += Data("\n".utf8)
        }
        let row = StudyManifest.Row(
            line: 2, recording: "v.mp4", participant: "v", stimulus: "ad", onset: 0, duration: 3)
        let reader = StudyRecordingReader(
            content: .memory(lines: lines, events: nil, source: "v"), settings: try StudySettings(bin: 1),
            watched: { _ in false })
        return try #require(try reader.read([row]).first)
    }

    @Test func aFaceThatLeavesAndComesBackWithANewID_isStillTheParticipant() throws {
        // Face 0 until 0.9 s, nobody until 2 s, then face 1: one viewer out of the picture for 1.1 s (and face 2 found
        // in one frame of it: a false find, not joined).
        let series = try read { time in
            time < 0.9
                ? [0: face(0, joy: 10)]
                : time < 2 ? (abs(time - 1.5) < 0.01 ? [2: face(2, joy: 50)] : [:]) : [1: face(1, joy: 90)]
        }
        #expect(series.exclusion == nil)
        #expect(series.faceId == 1)  // seen in 10 frames, face 0 in 9
        #expect(series.faceFrames == 19)
        #expect(abs(series.faceShare - 19.0 / 30) < 1e-9)
        // Both faces' frames are in the curves and the attention; nobody in the picture is not watching.
        #expect(series.bins["emotions.joy"] == [10, nil, 90])
        #expect(series.onScreenBins == [0.9, 0, 1])
        #expect(series.facesSeen == 3)
        #expect(series.notes.contains { $0.hasPrefix("faces 1, 0 taken as the participant") })
        #expect(
            series.notes.contains("3 faces seen, 0 frames with more than one: the participant is face 1, seen longest"))
    }

    @Test func someoneSeenBesideTheParticipant_isNotJoined() throws {
        // Face 0 throughout, face 1 beside it for the first second.
        let series = try read { time in
            time < 1 ? [0: face(0, joy: 10), 1: face(1, joy: 90)] : [0: face(0, joy: 10)]
        }
        #expect(series.faceId == 0)
        #expect(series.faceFrames == 30)
        #expect(series.bins["emotions.joy"] == [10, 10, 10])
        #expect(
            series.notes.contains("2 faces seen, 10 frames with more than one: the participant is face 0, seen longest")
        )
        #expect(!series.notes.contains { $0.contains("taken as the participant") })
    }

    @Test func aFaceOverlappingAJoinedOne_isNotJoinedEither() throws {
        // 0 until 1.5 s, 1 from then (as long: the lower ID leads), 2 beside 1 from 2.5 s: 1 joins, 2 does not.
        let series = try read { time in
            time < 1.5
                ? [0: face(0, joy: 10)]
                : time < 2.5 ? [1: face(1, joy: 50)] : [1: face(1, joy: 50), 2: face(2, joy: 90)]
        }
        #expect(series.faceFrames == 30)
        #expect(series.bins["emotions.joy"] == [10, 30, 50])
        #expect(series.facesSeen == 3)
    }

    /// The live count a participant is paid by (`FaceTime`, in `ProgressTally`) measures a face's time as the
    /// analysis does: a face in 1 frame of 5 is 20 % both ways (issue 94: live, each face frame stood for the frame
    /// span around it, 80 % here with the default span, and the participant was paid while the analysis excluded them).
    @Test func theLiveFaceShare_isTheAnalysisFaceShare() throws {
        let patterns: [(String, (Int) -> Bool)] = [
            ("1 frame of 5", { $0 % 5 == 0 }), ("the first 0.9 s", { $0 < 9 }), ("from 2 s", { $0 >= 20 }),
            ("every frame", { _ in true }), ("none", { _ in false }), ("2 frames of 3", { $0 % 3 != 0 }),
        ]
        for (name, hasFace) in patterns {
            let series = try read { time in hasFace(Int((time * 10).rounded())) ? [0: face(0, joy: 10)] : [:] }
            var live = FaceTime(duration: 3)
            for index in 0..<30 { live.add(Double(index) / 10, face: hasFace(index)) }
            let share = try #require(live.share)
            #expect(abs(share - series.faceShare) < 0.002, "\(name): live \(share), analysis \(series.faceShare)")
        }
        var sparse = MeasuredTime(duration: 3, span: CollectionSettings.Fieldwork().frameSpan)
        for index in stride(from: 0, to: 30, by: 5) { sparse.add(Double(index) / 10) }
        #expect(sparse.share > 0.5, "the frame span's rule, which the live count no longer uses: \(sparse.share)")
    }
}
