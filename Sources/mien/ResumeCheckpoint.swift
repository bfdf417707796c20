import Foundation
import Mien

/// What a killed run of `mien analyze` left of one input, read back so `--resume` continues after the last
/// frame it finished instead of starting over.
///
/// The JSON Lines output is the checkpoint: every line is written (unbuffered) as its frame completes, so
/// after a SIGKILL the temporary file `.<name>.jsonl.partial-<pid>` holds every finished frame, at most
/// followed by one torn line, which is dropped. CSV, summary and report are rebuilt from these results, so
/// the resumed outputs hold each frame exactly once. Without the JSON Lines format there is no checkpoint
/// and an incomplete input starts over.
struct ResumeCheckpoint {
    /// The finished frames, in order.
    var results: [DetectorResult]
    /// The temporary files of the killed run (deleted once the resumed run has copied them).
    var leftovers: [String]

    /// The frame after which to continue.
    var lastFrameIndex: Int? { results.last?.frameIndex }

    /// Face IDs after the resume start above every ID seen before it (tracking restarts, so a face visible
    /// across the kill gets a new ID, and the old one is reported lost).
    var nextFaceId: Int {
        (results.flatMap { ($0.faces ?? [:]).keys + $0.found }.max() ?? -1) + 1
    }

    /// Faces found and not lost by the end of the checkpoint.
    var openFaces: [Int] {
        var open = Set<Int>()
        for result in results {
            open.formUnion(result.found)
            open.subtract(result.lost)
        }
        return open.sorted()
    }

    /// Reads the newest partial JSON Lines file of `plan`, if any.
    static func load(_ plan: OutputPlan) -> ResumeCheckpoint? {
        guard let jsonlPath = plan.jsonlPath else { return nil }
        let leftovers = plan.files.flatMap(AtomicFile.leftovers(of:))
        let newest = AtomicFile.leftovers(of: jsonlPath).first
        guard let newest, let data = FileManager.default.contents(atPath: newest) else { return nil }
        let decoder = JSONDecoder()
        var results: [DetectorResult] = []
        // Only lines that end with a newline were finished; decoding stops at the first one that fails.
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()
        for line in lines {
            guard let result = try? decoder.decode(DetectorResult.self, from: Data(line)) else { break }
            if let last = results.last, result.frameIndex <= last.frameIndex { break }
            results.append(result)
        }
        guard !results.isEmpty else { return nil }
        return ResumeCheckpoint(results: results, leftovers: leftovers)
    }

    /// Deletes the killed run's temporary files.
    func removeLeftovers() {
        for path in leftovers { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// Renumbers the faces of results after a resume so they follow the IDs of the checkpoint.
struct FaceIdOffset {
    var offset: Int
    /// Faces of the checkpoint still open, reported lost on the first resumed frame.
    var pendingLost: [Int]

    mutating func apply(_ result: DetectorResult) -> DetectorResult {
        var shifted = result
        shifted.faces = result.faces.map { faces in
            Dictionary(
                uniqueKeysWithValues: faces.map { id, face in
                    var face = face
                    face.faceId = id + offset
                    return (id + offset, face)
                })
        }
        shifted.found = result.found.map { $0 + offset }
        shifted.lost = pendingLost + result.lost.map { $0 + offset }
        pendingLost = []
        return shifted
    }
}
