import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import MienCore
import MienTesting
import NIOCore
import NIOWebSocket
import Testing

@testable import Mien
@testable import MienService
@testable import MienStudies

/// Issue 78: the framing check is the server's, not the page's alone: a stimulus needs a check the server saw pass
/// on the session, so a client that skips it (or sends no face) never reaches a stimulus, let alone a code.
@Suite("mien serve --studies: the framing check the server judges")
struct StudyFramingTests {
    /// A result with one face of `side` pixels, `brightness` and `yaw`; nil `side`: no face.
    private func result(side: Double?, brightness: Double = 50, yaw: Double = 0) -> DetectorResult {
        guard let side else { return DetectorResult(frameIndex: 0, timestamp: 0, faces: [:], events: []) }
        var face = FaceResult(
            detection: FaceDetection(
                bounds: Rect(x: 10, y: 10, width: side, height: side),
                keypoints: Array(repeating: Point(x: 50, y: 50), count: 6), confidence: 0.9),
            faceId: 1)
        face.quality = FaceQuality(brightness: brightness, size: side, insideFrame: 1, hasColour: true)
        face.orientation = HeadPose(yaw: yaw, pitch: 0, roll: 0, interocularDistance: side / 3)
        return DetectorResult(frameIndex: 0, timestamp: 0, faces: [1: face], events: [])
    }

    @Test func theJudge_needsEveryLimit_forAnUnbrokenRun_ofThreeQuartersOfTheSeconds() {
        var judge = FramingJudge(limits: CollectionSettings.Framing())  // 30 px, 11.8, 25°, 2 s
        var said: [Bool] = []
        said.append(judge.judge(result(side: 100), at: 0))
        said.append(judge.judge(result(side: 100), at: 1.4))
        #expect(said == [false, false] && !judge.passed)
        // A break (a face too small, too dark, turned away, or none) starts the run again.
        for broken in [
            result(side: 20), result(side: 100, brightness: 5), result(side: 100, yaw: 40), result(side: nil),
        ] {
            var copy = judge
            let afterBreak = [copy.judge(broken, at: 1.45), copy.judge(result(side: 100), at: 1.5)]
            #expect(afterBreak == [false, false] && !copy.passed, "the run began again")
        }
        // A frame not analysed says nothing either way.
        let unanalysed = judge.judge(DetectorResult(frameIndex: 0, timestamp: 0, faces: nil, events: []), at: 1.45)
        let passing = judge.judge(result(side: 100), at: 1.5)
        #expect(!unanalysed && passing, "1.5 s is 75 % of 2 s: passed")
        let later = [judge.judge(result(side: 100), at: 1.7), judge.judge(result(side: nil), at: 1.9)]
        #expect(later == [false, false] && judge.passed, "said once; a face that moves away does not undo it")
    }

    /// Issue 79: the check's median look, from the passing run's faces with a gaze, is where the screen is.
    @Test func theJudge_takesTheMedianLookOfThePassingRun() {
        var judge = FramingJudge(limits: CollectionSettings.Framing())
        for (index, pitch) in [-12.0, -14, -13, -40, -11, -12].enumerated() {
            var looked = result(side: 100)
            looked.width = 640
            looked.height = 480
            // The face at the frame's centre: its look relative to the camera is its gaze.
            looked.faces?[1]?.faceBounds = Rect(x: 270, y: 190, width: 100, height: 100)
            looked.faces?[1]?.gaze = Gaze(yaw: 3, pitch: pitch, eyeYaw: 0, eyePitch: 0, left: nil, right: nil)
            #expect(judge.look == nil || index >= 5)
            _ = judge.judge(looked, at: Double(index) * 0.5)
        }
        let look = judge.look
        #expect(
            abs((look?.yaw ?? 0) - 3) < 1e-9 && abs((look?.pitch ?? 0) + 12.5) < 1e-9, "\(String(describing: look))")
    }

    /// The framing socket's frames and `{"type":"framed"}` (then `{"type":"failed"}` when `failing`, as the page
    /// says when a try's time ran out); returns every text message up to the close.
    private func frame(
        _ client: some TestClientProtocol, token: String, picture: [UInt8], failing: Bool = false,
        framed: String = #"{"type":"framed"}"#
    ) async throws -> [String] {
        let log = TextLog()
        _ = try await client.ws("/studies/ad/live?session=\(token)") { inbound, outbound, _ in
            let ready = Completion()
            let answered = Completion()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await ready.wait()
                    // 3 s at the page's 5 a second: the study's 2 s of a framed face, and time for the analysis.
                    for index in 0..<15 {
                        var milliseconds = Double(index) * 200
                        let stamp = withUnsafeBytes(of: &milliseconds) { Array($0) }
                        try await outbound.write(.binary(ByteBuffer(bytes: stamp + picture)))
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    try await outbound.write(.text(framed))
                    if failing { try await outbound.write(.text(#"{"type":"failed"}"#)) }
                    // Passed: the server ends the socket once the session holds it; refused: the page closes it,
                    // once the server answered (a busy server's answer comes after frames it still analyses).
                    await answered.wait(timeout: failing ? .seconds(1) : .seconds(10))
                    try? await outbound.close(.normalClosure, reason: nil)
                }
                for try await message in inbound.messages(maxSize: 1 << 24) {
                    guard case .text(let text) = message else { continue }
                    log.append(text)
                    if text.contains(#""type":"ready""#) { ready.signal() }
                    if text.contains("notFramed") || text.contains(#""type":"ended""#) { answered.signal() }
                }
                try await group.waitForAll()
            }
        }
        return log.all
    }

    @Test func aStimulus_needsAFramingCheckTheServerSawPass_onThisToken() async throws {
        let (parent, service, _, study) = try StudySocketTests.served(framesPerSecond: 40)
        defer { try? FileManager.default.removeItem(at: parent) }
        let token = try await study.admit(participant: "p1", group: nil).token
        let portrait = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        let grey = try ImageDecoder.decode(file: SampleMedia.astronautPath).warped(
            by: AffineTransform(a: 1 / 512, b: 0, tx: 0, c: 0, d: 1 / 512, ty: 0), width: 1, height: 1
        ).encoded(as: .jpeg(quality: 90))
        try await service.application().test(.live) { client in
            // Straight from the consent to the stimulus, as the trial's client did: refused, with a reason.
            let skipped = TextLog()
            _ = try await client.ws("/studies/ad/live?session=\(token)&stimulus=first") { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 24) {
                    if case .text(let text) = message { skipped.append(text) }
                }
            }
            #expect(skipped.all.contains { $0.contains("notFramed") }, "\(skipped.all)")
            // A framing socket of grey frames: the page's word is not enough. Refused and closed, it is not a
            // failure (the page tries again, as after a reload); a try whose time ran out is.
            let faceless = try await frame(client, token: token, picture: grey)
            #expect(faceless.contains { $0.contains("notFramed") }, "\(faceless)")
            #expect(!faceless.contains { $0.contains("positioned") })
            _ = try await frame(client, token: token, picture: grey, failing: true)
            // Recorded once the server has closed the socket (a moment after the page's close).
            try await StudySocketTests.eventually("the failed check recorded") {
                study.session("p1")?.framingFailures == 1
            }
            #expect(study.session("p1")?.framed == nil)
            // The sample's face: the server says so, takes `framed`, and the stimulus opens.
            let framed = try await frame(client, token: token, picture: portrait)
            #expect(framed.contains { $0.contains(#""type":"positioned""#) }, "\(framed)")
            #expect(framed.contains { $0.contains(#""type":"ended""#) }, "\(framed)")
            #expect(study.session("p1")?.framed != nil)
            // Where they looked at their picture is their screen: the astronaut looks into the camera.
            let look = try #require(study.session("p1")?.screenLook, "the check measured the gaze")
            #expect(look.count == 2 && abs(look[0]) < 15 && abs(look[1]) < 15, "\(look)")
            #expect(study.session("p1")?.screen?.centrePitch == look[1])
            #expect(
                study.session("p1")?.framingFailures == 1, "the refused start was not a failure, the timed-out try was")
            // Her resting face, learnt by the check, is kept with the session (issue 95 item 1) ...
            let neutral = try #require(study.session("p1")?.neutral, "the check learnt her resting face")
            #expect(neutral.observed >= 1 && !neutral.bins.isEmpty, "\(neutral.observed) s")
            let watched = try await StudySocketTests.play(client, token: token, stamps: [0, 100]) { _ in portrait }
            #expect(watched.contains { $0.contains(#""type":"ready""#) }, "\(watched)")
        }
        // ... and the stimulus starts from it: its first frame is read against her own neutral face, not settling.
        let jsonl = try #require(study.folder.files(participant: "p1", stimulus: "first").jsonl)
        let lines = try String(contentsOfFile: jsonl, encoding: .utf8).split(separator: "\n")
        let first = try #require(lines.first { $0.contains(#""faces""#) && $0.contains(#""expressions""#) })
        #expect(!first.contains("settling"), "\(first.prefix(300))")
        // The same ID consenting again (its page gone) is refused (issue 94): the check stays with its token.
        await StudyCollectionTests.refusal(.conflict, code: "cannotTakePart") {
            _ = try await study.admit(participant: "p1", group: nil)
        }
        #expect(study.session("p1")?.framed != nil)
        #expect(try await study.participant(token: token) == "p1")
    }

    /// The page says where the preview was on the participant's screen: the look at it is moved to the screen's
    /// centre by a laptop screen's size (32° × 18°).
    @Test func aPreviewRightOfAndAboveTheScreensCentre_putsTheCentreLeftOfAndBelowTheLook() async throws {
        let (parent, service, _, study) = try StudySocketTests.served(framesPerSecond: 40)
        defer { try? FileManager.default.removeItem(at: parent) }
        let portrait = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        let plain = try await study.admit(participant: "p1", group: nil).token
        let placed = try await study.admit(participant: "p2", group: nil).token
        try await service.application().test(.live) { client in
            _ = try await frame(client, token: plain, picture: portrait)
            _ = try await frame(
                client, token: placed, picture: portrait, framed: #"{"type":"framed","preview":{"x":0.75,"y":0.25}}"#)
        }
        // The same picture in every frame: about the same look at it in both checks (the frames each check analysed,
        // first detected then tracked, differ by hundredths of a degree: 0.006° in one CI run).
        let look = try #require(study.session("p1")?.screenLook)
        let centre = try #require(study.session("p2")?.screenLook)
        #expect(abs(centre[0] - (look[0] + 8)) < 0.2 && abs(centre[1] - (look[1] - 4.5)) < 0.2, "\(look) \(centre)")
        #expect(study.session("p2")?.screen?.centreYaw == centre[0])
    }
}
