import Foundation
import Mien
import MienTesting
import Testing

/// Detection on real photographs from ../shared/eval (skipped, and said so, when it is absent).
@Suite("BlazeFace on the evaluation data")
struct DetectorOnEvaluationDataTests {
    @Test(.needsEvaluationData) func debianStills_eachHaveTheirOneFaceFound() throws {
        let root = try evaluationRoot()
        let detector = try BlazeFaceDetector(options: DetectionOptions(faceMode: .small), models: repositoryModels())
        let astronaut = try detector.detect(
            in: ImageDecoder.decode(file: root.appendingPathComponent("debian_pkg_stills/astronaut.png").path))
        #expect(astronaut.count == 1)
        // Messi's face (about 20 px) is at roughly x 222...262, y 90...132 in the 548 x 342 picture.
        let messiFace = Rect(x: 218, y: 86, width: 48, height: 50)
        let messi = try detector.detect(
            in: ImageDecoder.decode(file: root.appendingPathComponent("debian_pkg_stills/messi5.jpg").path))
        #expect(messi.contains { messiFace.contains($0.bounds.center) }, "detections: \(messi.map(\.bounds))")
    }

    @Test(.needsEvaluationData) func dlibExamples_smallFaces_recallAtLeast90Percent_noDogFaces_boxesOnTheLabels() throws
    {
        let root = try evaluationRoot()
        let folder = root.appendingPathComponent("dlib_examples_faces")
        let detector = try BlazeFaceDetector(
            options: DetectionOptions(faceMode: .small, maximumFaces: 64), models: repositoryModels())
        var match = DetectionMatch()
        for file in ["training.xml", "testing.xml"] {
            for image in try LabelledFaces.dlibXML(folder.appendingPathComponent(file)) {
                match.add(
                    labels: image.faces, detections: try detector.detect(in: ImageDecoder.decode(file: image.path)))
            }
        }
        #expect(match.labelled == 43)
        #expect(match.recall >= 0.9, "recall \(match.recall)")
        #expect(match.spurious <= 2, "spurious \(match.spurious)")
        // dlib's boxes are tighter squares than BlazeFace's; measured mean IoU 0.81.
        #expect(match.meanIoU >= 0.7, "mean IoU \(match.meanIoU)")
        let dogs = try detector.detect(in: ImageDecoder.decode(file: folder.appendingPathComponent("dogs.jpg").path))
        #expect(dogs.isEmpty, "dog detections: \(dogs.map(\.confidence))")
    }

    @Test(.needsEvaluationData) func knownCounts_gridOfNine_andGrassOfNone() throws {
        let root = try evaluationRoot()
        let detector = try BlazeFaceDetector(
            options: DetectionOptions(faceMode: .small, maximumFaces: 64), models: repositoryModels())
        let assets = root.appendingPathComponent("face_alignment_test_assets")
        #expect(
            try detector.detect(
                in: ImageDecoder.decode(file: assets.appendingPathComponent("aflw-test-grid3x3.jpg").path)
            ).count == 9)
        #expect(
            try detector.detect(in: ImageDecoder.decode(file: assets.appendingPathComponent("grass.jpg").path)).isEmpty)
    }
}

/// The whole-picture fallback on skimage's LFW subset: 25 x 25 face and non-face patches of the same
/// pictures, enlarged 4 x (issue 24: tight crops found without new false faces).
@Suite("Whole-picture fallback on skimage's patches")
struct WholePictureFallbackTests {
    @Test(.needsEvaluationData) func facePatches_areFound_andNonFacePatchesAreNot() throws {
        let folder = try evaluationRoot().appendingPathComponent("skimage_lfw_subset")
        let labels = try String(contentsOf: folder.appendingPathComponent("labels.csv"), encoding: .utf8)
            .split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",") }
        let analyzer = try FaceAnalyzer(
            mode: .image, detection: DetectionOptions(faceMode: .small, maximumFaces: 4),
            models: repositoryModels())
        var faces = (found: 0, of: 0)
        var nonFaces = (found: 0, of: 0)
        for row in labels where row.count == 3 {
            let patch = try ImageDecoder.decode(file: folder.appendingPathComponent(String(row[0])).path)
            let enlarged = try patch.warped(by: .scale(4, thenTranslate: 0, 0), width: 100, height: 100)
            let found = try !analyzer.analyze(enlarged).faces.isEmpty
            if row[2] == "1" {
                faces = (faces.found + (found ? 1 : 0), faces.of + 1)
            } else {
                nonFaces = (nonFaces.found + (found ? 1 : 0), nonFaces.of + 1)
            }
        }
        #expect(faces.of == 100 && nonFaces.of == 100)
        // make eval (nearest-pixel enlargement): 93 faces, 0 non-faces; the detector alone finds 40 faces.
        #expect(faces.found >= 85, "\(faces.found) face patches found")
        #expect(nonFaces.found == 0, "\(nonFaces.found) non-face patches read as faces")
    }
}
