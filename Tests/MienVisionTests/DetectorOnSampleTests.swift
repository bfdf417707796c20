import Mien
import MienTesting
import Testing

@Suite("BlazeFace on the bundled sample")
struct DetectorOnSampleTests {
    let models: ModelStore
    let sample: Frame

    init() throws {
        models = try repositoryModels()
        sample = try ImageDecoder.decode(file: SampleMedia.astronautPath)
    }

    @Test(arguments: FaceMode.allCases)
    func sample_hasExactlyOneFace_onTheHandLabelledBox(mode: FaceMode) throws {
        let detector = try BlazeFaceDetector(options: DetectionOptions(faceMode: mode), models: models)
        let faces = try detector.detect(in: sample)
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        #expect(face.confidence > 0.85)
        #expect(face.bounds.iou(SampleMedia.astronautFace) > 0.7, "box \(face.bounds)")
        // Keypoints within 10 px of the hand-labelled eye centres; her right eye is on the image's left.
        #expect(face[.rightEye].distance(to: SampleMedia.astronautRightEye) < 10)
        #expect(face[.leftEye].distance(to: SampleMedia.astronautLeftEye) < 10)
        #expect(face.bounds.contains(face[.noseTip]) && face.bounds.contains(face[.mouthCenter]))
        #expect(face[.mouthCenter].y > face[.noseTip].y && face[.noseTip].y > face[.rightEye].y)
    }

    @Test func nonSquareFrame_isLetterboxed_soTheBoxMapsBackToFramePixels() throws {
        // Put the 512 x 512 portrait in the middle of a 1280 x 720 canvas: the box must move with it.
        let shift = AffineTransform.scale(1, thenTranslate: 300, 100)
        let wide = try sample.warped(by: shift, width: 1280, height: 720)
        let detector = try BlazeFaceDetector(options: DetectionOptions(faceMode: .small), models: models)
        let face = try #require(try detector.detect(in: wide).first)
        var expected = SampleMedia.astronautFace
        expected.x += 300
        expected.y += 100
        #expect(face.bounds.iou(expected) > 0.7, "box \(face.bounds)")
    }

    @Test func tightFaceCrop_isFoundByTheZoomedOutLook() throws {
        // Only the face, as in LFW-style crops: BlazeFace alone misses faces that fill the picture.
        let face = SampleMedia.astronautFace
        let (x0, y0, side) = (Int(face.x) - 5, Int(face.y) - 10, 110)
        var pixels: [UInt8] = []
        for y in y0..<(y0 + side) {
            let start = y * sample.stride + x0 * 3
            pixels += sample.pixels[start..<(start + side * 3)]
        }
        let crop = try Frame(width: side, height: side, pixels: pixels)
        let detector = try BlazeFaceDetector(options: DetectionOptions(), models: models)
        let found = try #require(try detector.detect(in: crop).first)
        #expect(found.confidence >= BlazeFaceDetector.zoomOutMinimumConfidence)
        let expected = Rect(x: face.x - Double(x0), y: face.y - Double(y0), width: face.width, height: face.height)
        #expect(found.bounds.iou(expected) > 0.5, "box \(found.bounds)")
    }

    @Test func fer2013StyleCrop_isMissedByTheDetector_andReadWithTheWholePictureFallback() throws {
        let crop = try SampleMedia.astronautTightCrop()
        let toCrop = SampleMedia.astronautTightCropTransform
        let detector = try BlazeFaceDetector(options: DetectionOptions(faceMode: .small), models: models)
        try #require(try detector.detect(in: crop).isEmpty, "the premise: the detector misses this crop")
        let plain = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, wholePictureFallback: false),
            emotions: true, models: models)
        #expect(try plain.analyze(crop).faces.isEmpty)
        // The fallback is the default.
        let fallback = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small), emotions: true, models: models)
        let found = try #require(try fallback.analyze(crop).largestFace)
        #expect(found.confidence >= 0.5, "the mesh's presence")
        // Her smile survives the 48 x 48 framing.
        #expect(found.emotions?.dominant == .joy, "\(String(describing: found.emotions))")
        // The mesh's eyes sit where hers are in the crop, the person's right eye on the picture's left.
        let rightEye = toCrop.apply(SampleMedia.astronautRightEye)
        let leftEye = toCrop.apply(SampleMedia.astronautLeftEye)
        #expect(found.bounds.contains(rightEye) && found.bounds.contains(leftEye), "bounds \(found.bounds)")
    }

    @Test func emptyPicture_hasNoFace() throws {
        let grey = try Frame(width: 320, height: 240, pixels: [UInt8](repeating: 128, count: 320 * 240 * 3))
        for mode in FaceMode.allCases {
            let detector = try BlazeFaceDetector(options: DetectionOptions(faceMode: mode), models: models)
            #expect(try detector.detect(in: grey).isEmpty)
        }
    }

    @Test func maximumFaces_keepsTheMostConfident_andMinimumConfidenceFilters() throws {
        // Nine copies of the face in a 3 x 3 mosaic.
        var mosaic = [UInt8](repeating: 0, count: 1536 * 1536 * 3)
        for row in 0..<3 {
            for column in 0..<3 {
                for y in 0..<512 {
                    let target = ((row * 512 + y) * 1536 + column * 512) * 3
                    mosaic.replaceSubrange(
                        target..<target + 512 * 3, with: sample.pixels[(y * 512 * 3)..<((y + 1) * 512 * 3)])
                }
            }
        }
        let frame = try Frame(width: 1536, height: 1536, pixels: mosaic)
        let all = try BlazeFaceDetector(options: DetectionOptions(faceMode: .small, maximumFaces: 64), models: models)
            .detect(in: frame)
        #expect(all.count == 9)
        let three = try BlazeFaceDetector(options: DetectionOptions(faceMode: .small, maximumFaces: 3), models: models)
            .detect(in: frame)
        #expect(three.count == 3)
        let bestThree = all.map(\.confidence).sorted(by: >).prefix(3)
        #expect(zip(three.map(\.confidence), bestThree).allSatisfy { abs($0 - $1) < 1e-9 })
        let threshold = (all.map(\.confidence).min() ?? 0) + 0.001
        let strict = try BlazeFaceDetector(
            options: DetectionOptions(faceMode: .small, maximumFaces: 64, minimumConfidence: threshold), models: models
        ).detect(in: frame)
        #expect(strict.count < 9 && strict.allSatisfy { $0.confidence >= threshold })
    }
}
