import ArgumentParser
import Foundation
import Mien
import MienTesting

/// Faces found where there are faces and where there are none: the crops of the expression sets, skimage's
/// patches, pictures without a face.
extension ExpressionEvaluation {
    /// Faces found in pictures that are themselves face crops (JAFFE, muxspace, fer2013), by Mien as it is by default
    /// (with the whole-picture fallback), by its detector alone (`--no-whole-picture-fallback`) and by the
    /// peer; and
    /// faces "found" in pictures without one (dlib's dogs, face_alignment's grass), which must stay 0.
    func compareFacesFound(
        jaffe: [LabelledExpression], muxspace: [LabelledExpression], fer: [LabelledExpression],
        peer: [String: BlendshapePeer.Picture], ferPeer: [String: BlendshapePeer.Picture], runner: BlendshapePeer,
        into result: inout [String: Any]
    ) throws {
        let mien = try PictureReader(groups: [], features: false, models: models)
        let detectorAlone = try PictureReader(groups: [], wholePictureFallback: false, features: false, models: models)
        func found(_ paths: [String], _ reader: PictureReader) throws -> Int {
            try paths.reduce(0) { $0 + ((try reader.read($1).faces ?? [:]).isEmpty ? 0 : 1) }
        }
        /// How many of `paths` each reader finds a face in, beside their number (under `total`).
        func readers(_ paths: [String], peer: [String: BlendshapePeer.Picture], total: String) throws -> [String: Int] {
            [
                total: paths.count, "mien": try found(paths, mien),
                "mien_detector_alone": try found(paths, detectorAlone),
                "peer": paths.filter { (peer[$0]?.faces ?? 0) > 0 }.count,
            ]
        }
        for (name, images, peer) in [("jaffe", jaffe, peer), ("muxspace", muxspace, peer), ("fer2013", fer, ferPeer)]
        where !images.isEmpty {
            let paths = images.map(\.imagePath)
            let counts = try readers(paths, peer: peer, total: "pictures")
            result["crops_found_" + name] = counts
            print(
                "expressions faces found in \(name)'s crops: Mien \(counts["mien"] ?? 0) (its detector alone"
                    + " \(counts["mien_detector_alone"] ?? 0)), MediaPipe \(counts["peer"] ?? 0), of \(paths.count)")
        }
        let noFace = [
            sets.root.appendingPathComponent("dlib_examples_faces/dogs.jpg").path,
            sets.root.appendingPathComponent("face_alignment_test_assets/grass.jpg").path,
        ].filter { FileManager.default.fileExists(atPath: $0) }
        guard !noFace.isEmpty else { return }
        let peerNoFace = try runner.pictures(noFace)
        func faces(_ reader: PictureReader) throws -> Int {
            try noFace.reduce(0) { $0 + (try reader.read($1).faces?.count ?? 0) }
        }
        let counts = [
            "pictures": noFace.count, "mien": try faces(mien),
            "mien_detector_alone": try faces(detectorAlone),
            "peer": noFace.reduce(0) { $0 + (peerNoFace[$1]?.faces ?? 0) },
        ]
        result["no_face_pictures_faces"] = counts
        print(
            "expressions faces in pictures without one (dogs, grass): Mien \(counts["mien"] ?? 0) (its detector"
                + " alone \(counts["mien_detector_alone"] ?? 0)), MediaPipe \(counts["peer"] ?? 0)")

        // Non-face patches (as skimage's): square crops of the dogs and grass pictures, 48-256 px, at random
        // places from a fixed seed, saved as PNG so that the peer reads the same pixels.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-eval-patches-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SeededGenerator(seed: 24)
        var patches: [String] = []
        for source in noFace {
            let picture = try ImageDecoder.decode(file: source)
            for index in 0..<Self.patchesPerPicture {
                let side = Double(Int.random(in: 48...256, using: &generator))
                let size = min(side, Double(min(picture.width, picture.height)))
                let x = Double.random(in: 0...(Double(picture.width) - size), using: &generator)
                let y = Double.random(in: 0...(Double(picture.height) - size), using: &generator)
                let patch = try picture.thumbnail(
                    of: Rect(x: x, y: y, width: size, height: size), size: Int(size), margin: 0)
                let path = folder.appendingPathComponent(
                    "\(index)-\(URL(fileURLWithPath: source).lastPathComponent).png")
                try Data(patch.encoded(as: .png)).write(to: path)
                patches.append(path.path)
            }
        }
        let patchCounts = try readers(patches, peer: try runner.pictures(patches), total: "patches")
        result["non_face_patches_with_a_face"] = patchCounts
        print(
            "expressions non-face patches read as a face: Mien \(patchCounts["mien"] ?? 0) (its detector alone"
                + " \(patchCounts["mien_detector_alone"] ?? 0)), MediaPipe \(patchCounts["peer"] ?? 0), of \(patches.count)"
        )

        let skimage = try Self.skimagePatches(root: sets.root, into: folder)
        guard !skimage.faces.isEmpty else { return }
        let peerSkimage = try runner.pictures(skimage.faces + skimage.nonFaces)
        for (key, paths) in [("faces", skimage.faces), ("non_faces", skimage.nonFaces)] {
            let counts = try readers(paths, peer: peerSkimage, total: "patches")
            result["skimage_\(key)_read_as_a_face"] = counts
            print(
                "expressions skimage's 25 x 25 \(key == "faces" ? "face" : "non-face") patches (enlarged 4 x) read as"
                    + " a face: Mien \(counts["mien"] ?? 0) (its detector alone \(counts["mien_detector_alone"] ?? 0)),"
                    + " MediaPipe \(counts["peer"] ?? 0), of \(paths.count)")
        }
    }

    /// skimage's LFW subset (`skimage.data.lfw_subset()`: 100 face and 100 non-face 25 x 25 patches from the
    /// same LFW pictures, float64 in 0...1), enlarged 4 x (nearest pixel) so that a detector has something
    /// to read, as PNG files in `folder`.
    /// - Returns: the faces' and the non-faces' paths; empty when the set is absent.
    static func skimagePatches(root: URL, into folder: URL) throws -> (faces: [String], nonFaces: [String]) {
        let file = root.appendingPathComponent("skimage_lfw_subset/lfw_subset.npy")
        guard let data = FileManager.default.contents(atPath: file.path), data.count > 10 else { return ([], []) }
        let bytes = [UInt8](data)
        // NPY 1.0: magic (6), version (2), header length (2, little-endian), header, then the array.
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
        let header = String(decoding: bytes[10..<(10 + headerLength)], as: UTF8.self)
        guard header.contains("'<f8'"), header.contains("(200, 25, 25)") else {
            throw ValidationError("\(file.path): expected a float64 array of shape (200, 25, 25)")
        }
        let side = 25
        let scale = 4
        var faces: [String] = []
        var nonFaces: [String] = []
        for index in 0..<200 {
            var pixels = [UInt8](repeating: 0, count: side * scale * side * scale * Frame.channels)
            for y in 0..<(side * scale) {
                for x in 0..<(side * scale) {
                    let offset = 10 + headerLength + ((index * side + y / scale) * side + x / scale) * 8
                    let raw = bytes[offset..<(offset + 8)].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    let value = UInt8(max(0, min(255, (Double(bitPattern: UInt64(littleEndian: raw)) * 255).rounded())))
                    let pixel = (y * side * scale + x) * Frame.channels
                    pixels[pixel] = value
                    pixels[pixel + 1] = value
                    pixels[pixel + 2] = value
                }
            }
            let frame = try Frame(width: side * scale, height: side * scale, pixels: pixels)
            let path = folder.appendingPathComponent(String(format: "skimage-%03d.png", index))
            try Data(frame.encoded(as: .png)).write(to: path)
            // Indices 0-99 are faces, 100-199 non-face crops (skimage's documentation, labels.csv).
            if index < 100 { faces.append(path.path) } else { nonFaces.append(path.path) }
        }
        return (faces, nonFaces)
    }

    /// Non-face patches cut from each picture without a face.
    static let patchesPerPicture = 100

    /// One task's ROC-AUC inputs: scores of the positive and negative pictures, and pictures without a face
    /// (or a score).
    struct TaskScores {
        var positives: [Double] = []
        var negatives: [Double] = []
        var missed = 0

        mutating func add(_ value: Double?, positive: Bool) {
            guard let value else {
                missed += 1
                return
            }
            if positive { positives.append(value) } else { negatives.append(value) }
        }

        var auc: Double { ROC.auc(positives: positives, negatives: negatives) }
        var counts: [Int] { [positives.count, negatives.count, missed] }

        /// The shares of positives and of negatives scored `threshold` or more.
        func rates(atLeast threshold: Double) -> (truePositive: Double, falsePositive: Double) {
            func share(_ values: [Double]) -> Double {
                Double(values.filter { $0 >= threshold }.count) / Double(max(values.count, 1))
            }
            return (share(positives), share(negatives))
        }
    }
}
