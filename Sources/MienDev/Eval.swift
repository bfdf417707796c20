import ArgumentParser
import Foundation
import Mien
import MienTesting

/// `MienDev eval`: accuracy on the evaluation data in `EVAL_DIR` (default ../shared/eval).
struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure accuracy on ../shared/eval (or EVAL_DIR) and print a JSON summary last.")

    @Option(
        help: ArgumentHelp(
            "Run only these sections (detection, geometry, expressions, affect, identity, events, lookingAtCamera,"
                + " viewing);"
                + " all when omitted."))
    var only: [String] = []

    func run() throws {
        guard let root = SampleMedia.evaluationDirectory else {
            print("SKIPPED: no evaluation data (set EVAL_DIR or place it at ../shared/eval)")
            print(#"{"evaluation":"skipped","reason":"no evaluation data"}"#)
            return
        }
        print("evaluation data: \(root.path)")
        let models = try ModelStore()
        let sets = EvalSets(root: root)
        var summary: [String: Any] = ["evaluation": "mien", "eval_dir": root.path]
        let sections: [(String, () throws -> [String: Any])] = [
            ("detection", { try DetectionEvaluation(sets: sets, models: models).run() }),
            ("geometry", { try GeometryEvaluation(sets: sets, models: models).run() }),
            ("expressions", { try ExpressionEvaluation(sets: sets, models: models).run() }),
            ("affect", { try AffectEvaluation(sets: sets, models: models).run() }),
            ("identity", { try IdentityEvaluation(sets: sets, models: models).run() }),
            ("events", { try EventEvaluation(sets: sets, models: models).run() }),
            ("lookingAtCamera", { try LookingAtCameraEvaluation(sets: sets, models: models).run() }),
            ("viewing", { try ViewingEvaluation(sets: sets, models: models).run() }),
        ]
        for (name, section) in sections where only.isEmpty || only.contains(name) {
            let measured = try section()
            if !measured.isEmpty { summary[name] = measured }
        }
        // Sets that were absent are named, and their numbers left out of the sections above.
        summary["skipped_sets"] = sets.skipped
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}

/// Face detection against labelled boxes and known face counts.
struct DetectionEvaluation {
    let sets: EvalSets
    let models: ModelStore

    func run() throws -> [String: Any] {
        var result: [String: Any] = [:]
        for mode in FaceMode.allCases {
            let detector = try BlazeFaceDetector(
                options: DetectionOptions(faceMode: mode, maximumFaces: 64), models: models)
            var section: [String: Any] = [:]

            // dlib examples: 43 labelled faces in 9 PASCAL images (faces down to 37 px), plus a dogs image.
            if let dlib = sets.folder("dlib_examples_faces") {
                var match = DetectionMatch()
                for file in ["training.xml", "testing.xml"] {
                    for image in try LabelledFaces.dlibXML(dlib.appendingPathComponent(file)) {
                        match.add(
                            labels: image.faces,
                            detections: try detector.detect(in: ImageDecoder.decode(file: image.path)))
                    }
                }
                let dogs = try detector.detect(
                    in: ImageDecoder.decode(file: dlib.appendingPathComponent("dogs.jpg").path))
                section["dlib_recall"] = round3(match.recall)
                section["dlib_found"] = match.found
                section["dlib_labelled"] = match.labelled
                section["dlib_spurious"] = match.spurious
                section["dlib_mean_iou"] = round3(match.meanIoU)
                section["dogs_faces"] = dogs.count
                print(
                    "detection \(mode): dlib recall \(match.found)/\(match.labelled) = \(round3(match.recall)),"
                        + " spurious \(match.spurious), mean IoU \(round3(match.meanIoU)), dogs \(dogs.count)")
            }

            // Known counts: the 3 x 3 grid has 9 faces, grass none, each Debian still one.
            let counts: [(String, String, String)] = [
                ("grid3x3_faces", "face_alignment_test_assets", "aflw-test-grid3x3.jpg"),
                ("grass_faces", "face_alignment_test_assets", "grass.jpg"),
                ("astronaut_faces", "debian_pkg_stills", "astronaut.png"),
                ("messi5_faces", "debian_pkg_stills", "messi5.jpg"),
            ]
            for (key, set, file) in counts {
                guard let folder = sets.folder(set) else { continue }
                section[key] = try detector.detect(
                    in: ImageDecoder.decode(file: folder.appendingPathComponent(file).path)
                ).count
            }
            if !section.isEmpty { result[mode.rawValue] = section }
            guard counts.contains(where: { section[$0.0] != nil }) else { continue }
            print(
                "detection \(mode) counts: grid \(section["grid3x3_faces"] ?? "-")/9, grass \(section["grass_faces"] ?? "-"),"
                    + " astronaut \(section["astronaut_faces"] ?? "-"), messi5 \(section["messi5_faces"] ?? "-")")
        }
        return result
    }
}
