import ArgumentParser
import Foundation
import MienTesting

/// MediaPipe Tasks FaceLandmarker's own 52 blendshapes on the evaluation pictures: the peer columns of
/// `make eval`'s expressions, on the same pictures and tasks as Mien.
///
/// Runs `scripts/peers/blendshape_scores.py` once over every picture, in the throwaway venv of
/// `scripts/peers/install-tasks.sh` (mediapipe==1.2.2 and the pinned face_landmarker.task, the bundle
/// Mien's own models come from).
struct BlendshapePeer {
    /// What the peer found in one picture.
    struct Picture {
        /// Faces found.
        var faces: Int
        /// The largest face's blendshapes (MediaPipe's names, 0...1), nil when none was found.
        var blendshapes: [String: Double]?
    }

    let python: URL
    let task: URL
    let script: URL

    /// The peer's name and version as the summary records it.
    static let name = "mediapipe 1.2.2 FaceLandmarker blendshapes"

    /// Why the peer cannot run.
    struct Unavailable: Error {
        var reason: String
    }

    /// The installed peer, or why it is not there.
    static func locate() -> Result<BlendshapePeer, Unavailable> {
        let root = SampleMedia.repositoryRoot
        let peer = BlendshapePeer(
            python: root.appendingPathComponent(".build/peers-tasks-venv/bin/python"),
            task: root.appendingPathComponent(".build/peers/face_landmarker.task"),
            script: root.appendingPathComponent("scripts/peers/blendshape_scores.py"))
        for file in [peer.python, peer.task, peer.script] where !FileManager.default.fileExists(atPath: file.path) {
            return .failure(Unavailable(reason: "\(file.path) is missing (scripts/peers/install-tasks.sh installs it)"))
        }
        return .success(peer)
    }

    /// The peer's reading of each picture, by path.
    /// - Throws: when the script cannot run or its output cannot be read.
    func pictures(_ paths: [String]) throws -> [String: Picture] {
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path, "--task", task.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Written from another thread: the script answers line by line and a full pipe would block both.
        let list = Data(paths.map { $0 + "\n" }.joined().utf8)
        let writer = Thread {
            try? input.fileHandleForWriting.write(contentsOf: list)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("the blendshape peer exited with status \(process.terminationStatus)")
        }
        var result: [String: Picture] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let path = object["path"] as? String
            else { continue }
            result[path] = Picture(
                faces: object["faces"] as? Int ?? 0,
                blendshapes: (object["blendshapes"] as? [String: Any])?.compactMapValues {
                    ($0 as? NSNumber)?.doubleValue
                })
        }
        return result
    }

    /// The peer's plain reading of Mien's smile: the mean of mouthSmileLeft and mouthSmileRight.
    static func smile(_ shapes: [String: Double]) -> Double? { mean(shapes, ["mouthSmileLeft", "mouthSmileRight"]) }

    /// Eye closure: the larger of eyeBlinkLeft and eyeBlinkRight.
    static func eyeClosure(_ shapes: [String: Double]) -> Double? {
        guard let left = shapes["eyeBlinkLeft"], let right = shapes["eyeBlinkRight"] else { return nil }
        return max(left, right)
    }

    /// Surprise: (mean of browInnerUp, browOuterUpLeft and browOuterUpRight, plus jawOpen) / 2, as Mien's
    /// (brow raise + mouth open) / 2.
    static func surprise(_ shapes: [String: Double]) -> Double? {
        guard let brows = mean(shapes, ["browInnerUp", "browOuterUpLeft", "browOuterUpRight"]),
            let jaw = shapes["jawOpen"]
        else { return nil }
        return (brows + jaw) / 2
    }

    /// The blendshapes Mien's own surprise reading is built from: browRaise ← browOuterUpLeft/Right and
    /// mouthOpen ← jawOpen, as (mean of the brows + jawOpen) / 2 (`ExpressionMapper`'s table).
    static func surpriseSource(_ shapes: [String: Double]) -> Double? {
        guard let brows = mean(shapes, ["browOuterUpLeft", "browOuterUpRight"]), let jaw = shapes["jawOpen"] else {
            return nil
        }
        return (brows + jaw) / 2
    }

    /// The mean of the blendshapes `names`, or nil when one of them is missing.
    static func mean(_ shapes: [String: Double], _ names: [String]) -> Double? {
        let values = names.compactMap { shapes[$0] }
        return values.count == names.count ? values.reduce(0, +) / Double(values.count) : nil
    }
}
