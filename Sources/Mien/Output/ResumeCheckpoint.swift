import Foundation

/// What a killed run left of one input, read back so a new run continues after the last frame it finished
/// instead of starting over (`mien analyze --resume`).
///
/// The JSON Lines output is the checkpoint: every line is written (unbuffered) as its frame completes, so
/// after a SIGKILL the temporary file `.<name>.jsonl.partial-<pid>-<n>` holds every finished frame, at most
/// followed by one torn line, which is dropped. The other outputs are rebuilt by replaying these results
/// into the new run's writers, and the detector continues from `resumePoint`, so each frame is in the
/// outputs exactly once. Without a JSON Lines output there is no checkpoint and an input starts over.
package struct ResumeCheckpoint: Sendable {
    /// The finished frames, in order.
    package var results: [DetectorResult]
    /// The temporary files of the killed run (deleted once the resumed run has replayed them).
    package var leftovers: [String]

    /// Where the detector continues (`DetectorOptions.resume`).
    package var resumePoint: ResumePoint? { ResumePoint(after: results) }

    /// Reads the newest temporary file of `jsonlPath`, if any.
    /// - Parameters:
    ///   - jsonlPath: the input's JSON Lines output, whose temporary file the killed run left.
    ///   - outputs: every output file of the input, whose temporary files are leftovers too.
    package static func load(jsonlPath: String, outputs: [String]) -> ResumeCheckpoint? {
        let leftovers = outputs.flatMap(AtomicFile.leftovers(of:))
        guard let newest = AtomicFile.leftovers(of: jsonlPath).first,
            let data = FileManager.default.contents(atPath: newest)
        else { return nil }
        return finishedFrames(data).map { ResumeCheckpoint(results: $0, leftovers: leftovers) }
    }

    /// Reads a committed JSON Lines file of a run a signal stopped (`ShardManifest.Status.interrupted`): it
    /// holds the frames done, and the new run replaces it.
    package static func load(committed jsonlPath: String) -> ResumeCheckpoint? {
        guard let data = FileManager.default.contents(atPath: jsonlPath) else { return nil }
        return finishedFrames(data).map { ResumeCheckpoint(results: $0, leftovers: []) }
    }

    /// The results of the complete lines of `data`, up to the first that is not one; nil when none is.
    private static func finishedFrames(_ data: Data) -> [DetectorResult]? {
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
        return results.isEmpty ? nil : results
    }

    /// The checkpoint up to `snapshot`'s frame; nil unless it holds that frame at the snapshot's time.
    ///
    /// The frames after it are analysed again by the run that restores the snapshot. The two disagree when the
    /// snapshot is newer than the finished frames, or of another run.
    package func through(_ snapshot: AnalysisSnapshot) -> ResumeCheckpoint? {
        guard let last = results.last(where: { $0.frameIndex <= snapshot.afterFrame }),
            last.frameIndex == snapshot.afterFrame, last.timestamp == snapshot.timestamp
        else { return nil }
        return ResumeCheckpoint(results: results.filter { $0.frameIndex <= snapshot.afterFrame }, leftovers: leftovers)
    }

    /// Writes the finished frames to a new run's writers (no pixels: they are not kept).
    package func replay(into writers: [any ResultWriter]) throws {
        for result in results {
            for writer in writers { try writer.write(result, frame: nil) }
        }
    }

    /// Deletes the killed run's temporary files.
    package func removeLeftovers() {
        for path in leftovers { try? FileManager.default.removeItem(atPath: path) }
    }
}
