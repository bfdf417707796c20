import Foundation
import MienCore
import Testing

@Suite("Expressions, emoji and baseline")
struct ExpressionTests {
    /// Expressions with every score at `rest` except the given ones (whole face and both sides).
    private func expressions(_ values: [FacialExpression: Double] = [:], rest: Double = 0) -> Expressions {
        var whole = Scores<FacialExpression>()
        var side = Scores<FacialExpression>()
        for expression in FacialExpression.allCases {
            whole[expression] = values[expression] ?? rest
            if FacialExpression.bilateral.contains(expression) { side[expression] = values[expression] ?? rest }
        }
        return Expressions(scores: whole, left: side, right: side)
    }

    @Test func responseCurve_clampsAndRunsBothWays() {
        let rising = ResponseCurve(neutral: 0.1, full: 0.5)
        #expect(rising(0) == 0 && abs(rising(0.3) - 0.5) < 1e-12 && rising(0.9) == 1)
        let falling = ResponseCurve(neutral: 0.3, full: 0.1)
        #expect(falling(0.35) == 0 && abs(falling(0.2) - 0.5) < 1e-12 && falling(0.05) == 1)
        #expect(rising(.nan) == 0)
    }

    @Test func absentScore_isNotZero_andIsLeftOutOfJSON() throws {
        var scores = Scores<FacialExpression>()
        scores[.smile] = 0
        #expect(scores[.smile] == 0 && scores[.browRaise] == nil)
        let json = String(decoding: try JSONEncoder().encode(scores), as: UTF8.self)
        #expect(json == #"{"smile":0}"#)
        let back = try JSONDecoder().decode(Scores<FacialExpression>.self, from: Data(json.utf8))
        #expect(back == scores)
        #expect(scores.keeping([.browRaise]).isEmpty)
    }

    @Test func expressionsJSON_hasAffdexNames_sides_andCIDetectorBooleans() throws {
        var e = expressions([.smile: 72, .eyeClosure: 80])
        e.right[.eyeClosure] = 10
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(e)) as? [String: Any])
        #expect(object["smile"] as? Double == 72)
        #expect(object["hasSmile"] as? Bool == true)
        #expect(object["leftEyeClosed"] as? Bool == true && object["rightEyeClosed"] as? Bool == false)
        #expect((object["left"] as? [String: Any])?["eyeClosure"] as? Double == 80)
        #expect(Expressions().hasSmile == nil, "no smile score, no smile verdict")
        #expect(expressions([.smile: Expressions.smileThreshold - 0.01]).hasSmile == false)
    }

    @Test func emoji_followTheirRules() {
        let mapper = EmojiMapper()
        var wink = expressions([.smile: 60])
        wink.left[.eyeClosure] = 95
        wink.right[.eyeClosure] = 5
        let winking = mapper.emoji(expressions: wink, tongue: 0)
        #expect((winking[.wink] ?? 0) > 85 && winking.dominantEmoji == .wink)
        #expect((winking[.stuckOutTongueWinkingEye] ?? 100) == 0)

        let kiss = mapper.emoji(expressions: expressions([.lipPucker: 90, .eyeClosure: 90]), tongue: nil)
        #expect((kiss[.kissingClosedEyes] ?? 0) > 85 && (kiss[.kissing] ?? 100) < 35)
        #expect(kiss.dominantEmoji == .kissingClosedEyes)
        #expect((kiss[.wink] ?? 100) < 35, "both eyes closed is not a wink")
        #expect(kiss[.stuckOutTongue] == nil, "no tongue evidence, no tongue emoji")

        let grin = mapper.emoji(expressions: expressions([.smile: 90, .mouthOpen: 80]), tongue: 0)
        #expect(grin.dominantEmoji == .smiley && (grin[.relaxed] ?? 100) < 50)
        let calm = mapper.emoji(expressions: expressions(rest: 5), tongue: 0)
        #expect(calm.dominantEmoji == nil)
        let json = String(decoding: (try? JSONEncoder().encode(calm)) ?? Data(), as: UTF8.self)
        #expect(json.contains(#""dominantEmoji":"none""#))
        #expect(Emoji.smiley.unicode == "\u{1F603}" && Emoji.allCases.count == 14)
    }

    @Test func baseline_movesABiasedNeutralFaceBackToZero_butKeepsRealExpressions() throws {
        // A person whose resting mouth turns down: lipCornerDepressor rests near 35, not 0.
        var baseline = NeutralBaseline(options: try BaselineOptions())
        var first: Double?
        var settled: [Bool] = []
        for frame in 0..<100 {
            let resting = expressions([.lipCornerDepressor: 35 + Double(frame % 5) - 2, .attention: 90])
            baseline.observe(resting, at: Double(frame) / 10)
            if frame == 0 { first = baseline.apply(to: resting)[.lipCornerDepressor] }
            settled.append(baseline.settled)
        }
        // Her own level from the first frame, never population norms faded out (issue 95: a still face moved).
        #expect((first ?? 100) < 5, "the first frame is read against the person's own")
        #expect(settled.prefix(10).allSatisfy { !$0 } && settled.dropFirst(10).allSatisfy { $0 }, "settled after 1 s")
        let rest = baseline.apply(to: expressions([.lipCornerDepressor: 35, .attention: 90]))
        #expect((rest[.lipCornerDepressor] ?? 100) < 5)
        #expect(rest[.attention] == 90, "attention is not a facial movement")
        #expect((rest.left[.lipCornerDepressor] ?? 100) < 5, "sides have their own levels")
        let frown = baseline.apply(to: expressions([.lipCornerDepressor: 90]))
        #expect((frown[.lipCornerDepressor] ?? 0) > 80)
        #expect(baseline.offset(.lipCornerDepressor) <= 40 && baseline.observed > 9)
    }

    @Test func baseline_neverTakesMoreThanItsMaximum() throws {
        var baseline = NeutralBaseline(options: try BaselineOptions(maximumOffset: 20))
        for frame in 0..<50 { baseline.observe(expressions([.smile: 80]), at: Double(frame)) }
        #expect(abs((baseline.apply(to: expressions([.smile: 80]))[.smile] ?? 0) - 75) < 0.01)
        #expect(throws: MienError.self) { try BaselineOptions(quantile: 1) }
        #expect(throws: MienError.self) { try BaselineOptions(memory: 0) }
    }

    @Test func reliabilityLimits_flagEachReason() throws {
        let limits = ReliabilityLimits.standard
        let good = FaceQuality(brightness: 50, size: 120, insideFrame: 1, hasColour: true)
        let pose = HeadPose(yaw: 5, pitch: -3, roll: 0, interocularDistance: 60)
        #expect(limits.flags(pose: pose, quality: good).isEmpty)
        let turned = HeadPose(yaw: -40, pitch: 28, roll: 0, interocularDistance: 12)
        let dark = FaceQuality(brightness: 8, size: 30, insideFrame: 0.6, hasColour: false)
        #expect(
            limits.flags(pose: turned, quality: dark) == [
                .headTurned, .headTilted, .faceTooSmall, .faceTooDark, .partlyOutOfFrame,
            ])
        #expect(throws: MienError.self) { try ReliabilityLimits(maximumYaw: 200) }
        #expect(throws: MienError.self) { try ReliabilityLimits(minimumInsideFrame: 2) }
    }

    /// A mesh whose 478 points are spread over `box` (a 22 x 22 grid), with the inner lip contour drawn
    /// as a `mouth`-sized ellipse at the box's lower middle.
    private func mesh(in box: Rect, mouthOpening: Double) -> FaceMesh {
        var points = (0..<FaceLandmark.count).map { i in
            Point3D(
                x: box.x + box.width * Double(i % 22) / 21, y: box.y + box.height * Double(i / 22 % 22) / 21, z: 0)
        }
        let centre = Point(x: box.x + box.width / 2, y: box.y + box.height * 0.75)
        for (k, index) in TongueEvidence.innerLipContour.enumerated() {
            let angle = Double(k) / Double(TongueEvidence.innerLipContour.count) * 2 * Double.pi
            points[index] = Point3D(
                x: centre.x - 0.2 * box.width * cos(angle), y: centre.y - mouthOpening / 2 * sin(angle), z: 0)
        }
        points[13] = Point3D(x: centre.x, y: centre.y - mouthOpening / 2, z: 0)
        points[14] = Point3D(x: centre.x, y: centre.y + mouthOpening / 2, z: 0)
        return FaceMesh(points: points, presence: 1, region: FaceRegion(center: centre, size: box.width, rotation: 0))
    }

    /// A `width` x `height` frame of one BGR colour, with `box` painted another.
    private func frame(width: Int, height: Int, fill: [UInt8], box: Rect? = nil, boxFill: [UInt8] = []) throws -> Frame
    {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let inBox = box.map { $0.contains(Point(x: Double(x) + 0.5, y: Double(y) + 0.5)) } ?? false
                let colour = inBox ? boxFill : fill
                for c in 0..<3 { pixels[(y * width + x) * 3 + c] = colour[c] }
            }
        }
        return try Frame(width: width, height: height, pixels: pixels)
    }

    @Test func faceQuality_measuresBrightnessSizeFramingAndColour() throws {
        let grey = try frame(width: 200, height: 200, fill: [128, 128, 128])
        let inside = FaceQuality(mesh: mesh(in: Rect(x: 50, y: 50, width: 100, height: 80), mouthOpening: 10), in: grey)
        #expect(abs(inside.brightness - 50.2) < 0.5 && inside.size == 100 && inside.insideFrame == 1)
        #expect(!inside.hasColour)
        let half = FaceQuality(mesh: mesh(in: Rect(x: 150, y: 50, width: 100, height: 100), mouthOpening: 10), in: grey)
        #expect(half.insideFrame > 0.4 && half.insideFrame < 0.6)
    }

    @Test func tongue_isSeenOnlyAsRedInsideAnOpenMouth_andNeedsColour() throws {
        let face = Rect(x: 40, y: 40, width: 120, height: 120)
        let open = mesh(in: face, mouthOpening: 30)
        let mouth = Rect(x: 60, y: 115, width: 80, height: 40)
        // BGR: a tongue's pink-red against skin, then teeth-white, then a closed mouth.
        let tongue = try frame(width: 200, height: 200, fill: [140, 160, 200], box: mouth, boxFill: [120, 100, 210])
        #expect((TongueEvidence.score(mesh: open, in: tongue, hasColour: true) ?? 0) > 90)
        let teeth = try frame(width: 200, height: 200, fill: [140, 160, 200], box: mouth, boxFill: [215, 225, 235])
        #expect(TongueEvidence.score(mesh: open, in: teeth, hasColour: true) == 0)
        #expect(TongueEvidence.score(mesh: mesh(in: face, mouthOpening: 1), in: tongue, hasColour: true) == 0)
        #expect(TongueEvidence.score(mesh: open, in: tongue, hasColour: false) == nil)
    }
}
