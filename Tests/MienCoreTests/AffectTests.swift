import Foundation
import MienCore
import Testing

@Suite("Emotions and appearance")
struct AffectTests {
    private func expressions(_ values: [FacialExpression: Double]) -> Expressions {
        var scores = Scores<FacialExpression>()
        for expression in FacialExpression.allCases { scores[expression] = values[expression] ?? 0 }
        return Expressions(scores: scores)
    }

    private let flatCNN = [Double](repeating: 1.0 / 7, count: 7)

    @Test func fusion_followsTheEMFACSRules_whenTheCNNIsUndecided() {
        let fusion = EmotionFusion()
        let smile = fusion.emotions(cnn: flatCNN, expressions: expressions([.smile: 100, .cheekRaise: 100]))
        #expect(smile.dominant == .joy && smile.valence > 0)
        let frown = fusion.emotions(
            cnn: flatCNN, expressions: expressions([.innerBrowRaise: 100, .browFurrow: 100, .lipCornerDepressor: 100]))
        #expect(frown.dominant == .sadness && frown.valence < 0)
        let sum = Emotion.allCases.filter { $0 != .contempt }.map { smile[$0] ?? 0 }.reduce(0, +)
        #expect(abs(sum - 100) < 0.1, "the CNN's classes share 100")
    }

    @Test func contempt_comesFromAOneSidedSmile_andIsNeverConstant() {
        let fusion = EmotionFusion()
        let smirk = fusion.emotions(cnn: flatCNN, expressions: expressions([.smirk: 90]))
        #expect((smirk[.contempt] ?? 0) > 70)
        let calm = fusion.emotions(cnn: flatCNN, expressions: expressions([:]))
        #expect(calm[.contempt] == 0)
        var happy = [Double](repeating: 0, count: 7)
        happy[3] = 1
        let smilingSmirk = fusion.emotions(cnn: happy, expressions: expressions([.smirk: 90, .smile: 80]))
        #expect((smilingSmirk[.contempt] ?? 100) < 5, "part of a smile is not contempt")
    }

    @Test func withoutCNN_theRulesAloneDecide() {
        let fusion = EmotionFusion()
        let surprised = fusion.emotions(
            cnn: nil, expressions: expressions([.innerBrowRaise: 90, .browRaise: 90, .eyeWiden: 90, .jawDrop: 90]))
        #expect(surprised.dominant == .surprise)
        #expect(fusion.emotions(cnn: nil, expressions: expressions([:])).dominant == .neutral)
    }

    @Test func engagement_isTheStrongestMovements_notAttention() {
        let e = EmotionFusion().emotions(
            cnn: flatCNN, expressions: expressions([.attention: 100, .smile: 90, .mouthOpen: 60]))
        #expect(abs(e.engagement - 50) < 0.01)
        let json = String(decoding: (try? JSONEncoder().encode(e)) ?? Data(), as: UTF8.self)
        #expect(json.contains("\"valence\"") && json.contains("\"engagement\"") && json.contains("\"joy\""))
    }

    @Test func appearance_decidesGenderOnlyWhenConfident_andBracketsAge() {
        #expect(Appearance(maleProbability: 0.9, age: 30, glassesEvidence: 1, lensDarkness: 1).gender == .male)
        #expect(Appearance(maleProbability: 0.2, age: 30, glassesEvidence: 1, lensDarkness: 1).gender == .female)
        #expect(Appearance(maleProbability: 0.55, age: 30, glassesEvidence: 1, lensDarkness: 1).gender == .unknown)
        #expect(Appearance(maleProbability: 0.5, age: 30, glassesEvidence: 20, lensDarkness: 1).glasses)
        // Dark lenses without a visible bridge: the whites of the eyes far darker than the skin.
        #expect(Appearance(maleProbability: 0.5, age: 30, glassesEvidence: 5, lensDarkness: 5).glasses)
        #expect(!Appearance(maleProbability: 0.5, age: 30, glassesEvidence: 5, lensDarkness: 3).glasses)
        let brackets: [(Double, AgeBracket)] = [
            (12, .under18), (18, .from18to24), (24.9, .from18to24), (25, .from25to34), (44, .from35to44),
            (54, .from45to54), (64, .from55to64), (65, .over64), (.nan, .unknown),
        ]
        for (age, bracket) in brackets { #expect(AgeBracket(age: age) == bracket, "\(age)") }
    }

    @Test func appearanceTrack_averagesSoOneOddFrameCannotFlipIt() {
        var track = AppearanceTrack()
        let framed = GlassesEvidence(bridge: 20, bar: 2, lensDarkness: 1.2)
        for _ in 0..<9 { _ = track.add(maleProbability: 0.1, age: 30, glasses: framed) }
        let after = track.add(
            maleProbability: 0.95, age: 60, glasses: GlassesEvidence(bridge: 0, bar: 0, lensDarkness: 1))
        #expect(after.gender == .female && after.glasses && abs(after.age - 33) < 0.01)
        #expect(track.frames == 10 && track.current == after)
    }

    @Test func similarity_recoversAKnownTransform() throws {
        let truth = AffineTransform(a: 0.8, b: -0.6, tx: 12, c: 0.6, d: 0.8, ty: -7)
        let source = [Point(x: 0, y: 0), Point(x: 10, y: 3), Point(x: -4, y: 8), Point(x: 6, y: -5)]
        let fit = try #require(AffineTransform.similarity(mapping: source, onto: source.map(truth.apply)))
        for (a, b) in zip(fit.rowMajor, truth.rowMajor) { #expect(abs(a - b) < 1e-9) }
        #expect(AffineTransform.similarity(mapping: [Point(x: 1, y: 1)], onto: [Point(x: 2, y: 2)]) == nil)
    }

    @Test func faceChip_putsTheEyeCornersWhereDlibsTemplateHasThem() throws {
        // A mesh whose eye corners and nose base sit exactly on dlib's template, scaled by 3 and shifted.
        var points = [Point3D](repeating: Point3D(x: 50, y: 50, z: 0), count: FaceLandmark.count)
        let template: [(Int, Double, Double)] = [
            (263, 0.8595674595992, 0.2134981538014), (362, 0.6460604764104, 0.2289674387677),
            (33, 0.1205750620789, 0.2137274526848), (133, 0.3340850613712, 0.2290642403242),
            (2, 0.4901123135679, 0.6277975316475),
        ]
        for (index, x, y) in template { points[index] = Point3D(x: 20 + 300 * x, y: 40 + 300 * y, z: 0) }
        let transform = try #require(FaceChip.transform(points: points, size: 64))
        let chipX = (0.2 + 0.1205750620789) / 1.4 * 64
        let mapped = transform.apply(points[33].xy)
        #expect(abs(mapped.x - chipX) < 1e-6)
    }

    /// Counts calls; says every face is a 30-year-old man.
    private final class CountingAppearance: AppearanceClassifying {
        var calls = 0
        func maleProbability(in frame: Frame, points: [Point3D]) throws -> Double {
            calls += 1
            return 0.9
        }
        func age(in frame: Frame, points: [Point3D]) throws -> Double { 30 }
    }

    /// A 64 x 64 grey frame and a face 0 whose 478 points are a grid across it (enough for the stage's
    /// bookkeeping; the fakes ignore the pixels).
    private static func greyFrameWithAFace() throws -> (Frame, TrackedFace) {
        let frame = try Frame(width: 64, height: 64, pixels: [UInt8](repeating: 128, count: 64 * 64 * 3))
        let points = (0..<FaceLandmark.count).map {
            Point3D(x: Double($0 % 22) * 2 + 10, y: Double($0 / 22) * 2 + 5, z: 0)
        }
        let mesh = FaceMesh(
            points: points, presence: 1, region: FaceRegion(center: Point(x: 32, y: 32), size: 40, rotation: 0))
        return (frame, TrackedFace(faceId: 0, bounds: mesh.bounds, confidence: 1, mesh: mesh, pose: nil))
    }

    @Test func appearanceStage_stopsRunningTheNetworksOnceATrackHasSettled() throws {
        let counting = CountingAppearance()
        let stage = AffectStage(emotions: false, cnn: nil, appearance: counting)
        let (frame, face) = try Self.greyFrameWithAFace()
        for _ in 0..<40 { _ = try stage.measure(face, in: frame, stream: true) }
        #expect(counting.calls == AppearanceTrack.settledFrames)
        let settled = try stage.measure(face, in: frame, stream: true)
        #expect(settled.appearance?.gender == .male && settled.appearance?.age == 30)
        _ = try stage.measure(face, in: frame, stream: false)
        #expect(counting.calls == AppearanceTrack.settledFrames + 1, "discrete images always run")
        stage.reset()
        _ = try stage.measure(face, in: frame, stream: true)
        #expect(counting.calls == AppearanceTrack.settledFrames + 2, "reset starts a new track")
    }

    @Test func emotionViewWindow_runsEachViewInTurn_andAveragesTheLatestOfEach() {
        var window = EmotionViewWindow()
        let a = [1.0, 0, 0]
        let b = [0.0, 1, 0]
        let c = [0.0, 0, 1]
        #expect(window.nextView(of: 3) == 0)
        #expect(window.add(a, view: 0, viewCount: 3) == a, "one view seen: its own scores")
        #expect(window.nextView(of: 3) == 1)
        #expect(window.add(b, view: 1, viewCount: 3) == [0.5, 0.5, 0])
        #expect(window.add(c, view: 2, viewCount: 3).map { ($0 * 3).rounded() } == [1, 1, 1])
        #expect(window.nextView(of: 3) == 0, "back to the first view")
        // The first view's new scores replace its old ones; the others are still the latest.
        let mean = window.add(c, view: 0, viewCount: 3)
        #expect(abs(mean[2] - 2.0 / 3) < 1e-12 && abs(mean[1] - 1.0 / 3) < 1e-12 && mean[0] == 0)
        // Fewer views now (the face no longer fills the picture): view 2 is forgotten.
        #expect(window.add(a, view: 1, viewCount: 2) == [0.5, 0, 0.5])
    }

    /// A 478-point grid covering `box` (frame pixels).
    private static func grid(covering box: Rect) -> [Point3D] {
        (0..<FaceLandmark.count).map {
            Point3D(
                x: box.minX + Double($0 % 22) / 21 * box.width, y: box.minY + Double($0 / 22) / 21 * box.height, z: 0)
        }
    }

    @Test func emotionViews_faceCropsAddTheWholePicture_zoomedAboutItsCentre() throws {
        let crop = try Frame(width: 48, height: 40, pixels: [UInt8](repeating: 0, count: 48 * 40 * 3))
        let filling = Self.grid(covering: Rect(x: 6, y: 4, width: 36, height: 32))
        #expect(EmotionView.views(of: filling, in: crop) == EmotionView.faceIsPicture)
        let wide = try Frame(width: 400, height: 300, pixels: [UInt8](repeating: 0, count: 400 * 300 * 3))
        let small = Self.grid(covering: Rect(x: 100, y: 100, width: 60, height: 70))
        #expect(EmotionView.views(of: small, in: wide) == EmotionView.faceInPicture)
        #expect(EmotionView.faceIsPicture.first == EmotionView.faceInPicture.first, "streams keep their first view")

        // Zoom 1 stretches the picture onto the input, corner to corner.
        let whole = try #require(EmotionView.wholePicture(zoom: 1).transform(points: filling, in: crop, size: 64))
        #expect(whole.apply(Point(x: 0, y: 0)) == Point(x: 0, y: 0))
        #expect(whole.apply(Point(x: 48, y: 40)) == Point(x: 64, y: 64))
        // Zoom 1.1 shows a margin: the centre stays in the middle and the corners move inwards.
        let out = try #require(EmotionView.wholePicture(zoom: 1.1).transform(points: filling, in: crop, size: 64))
        #expect(out.apply(Point(x: 24, y: 20)) == Point(x: 32, y: 32))
        let corner = out.apply(Point(x: 48, y: 40))
        #expect(abs(corner.x - (32 + 32 / 1.1)) < 1e-9 && abs(corner.y - (32 + 32 / 1.1)) < 1e-9)
        // A mesh crop needs a mesh.
        #expect(EmotionView.meshCrop(scale: 1).transform(points: [], in: crop, size: 64) == nil)
        #expect(EmotionView.meshCrop(scale: 1).transform(points: filling, in: crop, size: 64) != nil)
    }

    /// Returns scores that name the view, and counts calls.
    private final class ViewNamingCNN: EmotionClassifying {
        var calls: [Int] = []
        func viewCount(in frame: Frame, points: [Point3D]) -> Int { 3 }
        func probabilities(in frame: Frame, points: [Point3D], view: Int) throws -> [Double] {
            calls.append(view)
            var scores = [Double](repeating: 0, count: FacialEmotionCNN.classes.count)
            scores[view] = 1
            return scores
        }
    }

    @Test func emotionsInStreams_runOneViewPerFrame_whilePicturesRunThemAll() throws {
        let cnn = ViewNamingCNN()
        let stage = AffectStage(emotions: true, cnn: cnn, appearance: nil)
        var (frame, face) = try Self.greyFrameWithAFace()
        face.expressions = Expressions()
        for _ in 0..<4 { _ = try stage.measure(face, in: frame, stream: true) }
        #expect(cnn.calls == [0, 1, 2, 0], "one view per frame, in turn")
        cnn.calls = []
        _ = try stage.measure(face, in: frame, stream: false)
        #expect(cnn.calls == [0, 1, 2], "a picture runs every view")
    }
}
