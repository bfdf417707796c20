import Foundation

/// What a killed run left of one input, read back so a new run continues after the last frame it finished
/// instead of starting over (`mien analyze --resume`).
///
/// The JSON Lines output is the checkpoint: every line is written (unbuffered) as its frame completes, so
/// after a SIGKILL the temporary file `.<name>.jsonl.partial-<pid>-<n>` holds every finished frame, at most
/// followed by one torn line, which is dropped. The other outputs are rebuilt by replaying these results
/// into the new run's writers, and the detector continues from the resume point, so each frame is in the
/// outputs exactly once. Without a JSON Lines output there is no checkpoint and an input starts over.
///
/// The file is read line by line as it is replayed, never held whole: a checkpoint of an hour of video (a
/// few hundred MB of JSON Lines) costs the memory of one result.
package struct ResumeCheckpoint: Sendable {
    /// The file holding the finished frames.
    package let path: String
    /// The temporary files of the killed run (deleted once the resumed run has replayed them).
    package var leftovers: [String]

    /// The newest temporary file of `jsonlPath`, if any.
    /// - Parameters:
    ///   - jsonlPath: the input's JSON Lines output, whose temporary file the killed run left.
    ///   - outputs: every output file of the input, whose temporary files are leftovers too.
    package static func load(jsonlPath: String, outputs: [String]) -> ResumeCheckpoint? {
        let leftovers = outputs.flatMap(AtomicFile.leftovers(of:))
        guard let newest = AtomicFile.leftovers(of: jsonlPath).first else { return nil }
        return ResumeCheckpoint(path: newest, leftovers: leftovers)
    }

    /// A committed JSON Lines file of a run a signal stopped (`ShardManifest.Status.interrupted`): it holds
    /// the frames done, and the new run replaces it.
    package static func load(committed jsonlPath: String) -> ResumeCheckpoint? {
        FileManager.default.fileExists(atPath: jsonlPath) ? ResumeCheckpoint(path: jsonlPath, leftovers: []) : nil
    }

    /// What a replay found.
    package struct Replayed: Sendable {
        /// Where the new run continues; nil when no frame was finished (the input starts over).
        package var point: ResumePoint?
        /// Whether the replay stopped at the snapshot's frame, held at the snapshot's time (the run restores it).
        ///
        /// False: every finished frame was replayed, and a stream is analysed again from its first frame.
        package var reachedSnapshot: Bool
    }

    /// Writes the finished frames to a new run's writers (no pixels: they are not kept), in order, up to the
    /// first line that is not a complete result following the one before.
    ///
    /// With a `snapshot`, the replay stops at its frame when the checkpoint holds that frame at the snapshot's
    /// time (the frames after it are analysed again by the run that restores it); otherwise it goes on to the
    /// last finished frame, as without one: the frames replayed before the disagreement showed are the same.
    /// - Throws: a writer's error, or `.ioFailure` when the file cannot be read.
    package func replay(into writers: [any ResultWriter], upTo snapshot: AnalysisSnapshot? = nil) throws -> Replayed {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MienError(.ioFailure, "cannot read the earlier run's results", input: path)
        }
        defer { try? handle.close() }
        let decoder = JSONDecoder()
        var point = PointFinder()
        var buffer = Data()
        var previous: Int?
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw MienError(.ioFailure, "cannot read the earlier run's results", input: path)
            }
            // Only lines that end with a newline were finished: a torn last line stays in the buffer.
            if chunk.isEmpty { break }
            buffer.append(chunk)
            var start = buffer.startIndex
            while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = buffer.index(after: newline) }
                guard let result = try? decoder.decode(DetectorResult.self, from: buffer[start..<newline]),
                    previous.map({ result.frameIndex > $0 }) ?? true
                else { return Replayed(point: point.point, reachedSnapshot: false) }
                if let snapshot, result.frameIndex > snapshot.afterFrame {
                    return Replayed(point: point.point, reachedSnapshot: false)
                }
                for writer in writers { try writer.write(result, frame: nil) }
                point.add(result)
                previous = result.frameIndex
                if let snapshot, result.frameIndex == snapshot.afterFrame {
                    return Replayed(point: point.point, reachedSnapshot: result.timestamp == snapshot.timestamp)
                }
            }
            buffer = Data(buffer[start...])
        }
        return Replayed(point: point.point, reachedSnapshot: false)
    }

    /// Replays the checkpoint into `writers` and sets where the run goes on (`settings.resume`).
    ///
    /// It goes on from the snapshot `file` keeps when that agrees with the program, the settings, the input and
    /// the checkpoint (`settings.restoring`; the frames after it are analysed again); otherwise after the last
    /// finished frame, a stream's earlier frames analysed again from the first. Deletes the killed run's
    /// temporary files.
    /// - Parameters:
    ///   - warn: told, in words, why a snapshot is not used and where the run goes on.
    /// - Throws: a writer's error, or `.ioFailure` when the checkpoint cannot be read.
    package func resume(
        into writers: [any ResultWriter], snapshot file: SnapshotFile?, settings: inout RunSettings,
        warn: (String) -> Void
    ) throws {
        var snapshot: AnalysisSnapshot?
        switch file.flatMap({ SnapshotFile.load(path: $0.path, identity: $0.identity) }) {
        case .success(let loaded): snapshot = loaded
        case .failure(let refusal): warn("\(refusal); not used, analysed again from the first frame")
        case nil: break
        }
        let replayed = try replay(into: writers, upTo: snapshot)
        removeLeftovers()
        if let snapshot, !replayed.reachedSnapshot {
            warn(
                "its snapshot (after frame \(snapshot.afterFrame)) does not match the finished frames; analysed again from the first frame"
            )
        }
        guard let point = replayed.point else { return }
        if replayed.reachedSnapshot { settings.restoring = snapshot.map(RestoredAnalysis.init) }
        let how =
            replayed.reachedSnapshot
            ? "from its snapshot: faces, baselines and episodes continue as in one run"
            : "a video's earlier frames are analysed again, not written again, so its faces, baselines and episodes continue as in one run"
        warn("resuming after frame \(point.afterFrame) (\(how))")
        settings.resume = point
    }

    /// Deletes the killed run's temporary files.
    package func removeLeftovers() {
        for path in leftovers { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// `ResumePoint(after:)` one result at a time.
private struct PointFinder {
    private var open = Set<Int>()
    private var highest = -1
    private var last: Int?

    mutating func add(_ result: DetectorResult) {
        open.formUnion(result.found)
        open.subtract(result.lost)
        highest = max(highest, result.faces?.keys.max() ?? -1, result.found.max() ?? -1)
        last = result.frameIndex
    }

    var point: ResumePoint? {
        last.map { ResumePoint(afterFrame: $0, nextFaceId: highest + 1, openFaces: open.sorted()) }
    }
}
