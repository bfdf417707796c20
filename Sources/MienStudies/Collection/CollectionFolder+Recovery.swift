import Foundation
import Mien
import MienCore

extension CollectionFolder {
    /// What a server that stopped without closing a stimulus left (kill -9, a power cut, a full disk): the
    /// frames in its temporary JSON Lines file become the stimulus's result files, committed, with the
    /// progress they show.
    ///
    /// The JSON Lines were written line by line as frames were measured, so the file holds every measured
    /// frame, at most followed by one torn line, which is dropped (`ResumeCheckpoint`). The CSV, events and
    /// summary are made again from those lines; an episode still open when the server stopped is not in the
    /// events (it never ended). The temporary files are deleted once the committed ones are written; when they
    /// cannot be written (the disk is still full) they stay for the next try.
    /// - Returns: the progress measured, nil when nothing was left.
    /// - Throws: `.ioFailure` naming the file that cannot be read or written.
    package func recover(participant: String, stimulus: CollectionSettings.Stimulus, span: Double) throws
        -> ParticipantSession.StimulusProgress?
    {
        let files = self.files(participant: participant, stimulus: stimulus.name)
        guard let jsonl = files.jsonl, let checkpoint = ResumeCheckpoint.load(jsonlPath: jsonl, outputs: files.all)
        else { return nil }
        // A leftover older than the committed files is of an attempt that was followed by a finished one.
        if let committed = Self.modified(jsonl), let leftover = Self.modified(checkpoint.path), leftover <= committed {
            checkpoint.removeLeftovers()
            return nil
        }
        let counter = RecoveredProgress(duration: stimulus.duration, span: span)
        let writers = try files.writers(input: stimulus.name, report: nil, generator: "mien serve --studies")
        do {
            _ = try checkpoint.replay(into: writers + [counter])
            for writer in writers { try writer.finish(.stopped) }
        } catch {
            let failure = error as? MienError ?? MienError(.ioFailure, "\(error)", input: jsonl)
            for writer in writers { writer.fail(failure) }
            throw failure
        }
        checkpoint.removeLeftovers()
        return counter.progress
    }

    private static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// Renames a stimulus's result files to those of an earlier attempt (`<stimulus>.attempt<n>.jsonl`, …), so
    /// a new attempt starts with none.
    /// - Throws: `.ioFailure` naming the file that cannot be renamed.
    package func setAside(participant: String, stimulus: String, attempt: Int) throws {
        let current = files(participant: participant, stimulus: stimulus)
        let earlier = files(participant: participant, stimulus: "\(stimulus).attempt\(attempt)")
        for (from, to) in zip(current.all, earlier.all) where FileManager.default.fileExists(atPath: from) {
            guard rename(from, to) == 0 else {
                throw MienError(
                    .ioFailure, "cannot set an earlier attempt aside", input: from,
                    cause: String(cString: strerror(errno)))
            }
        }
    }
}

/// Counts what recovered JSON Lines show, as a stimulus socket counts what it measures: every line was a frame
/// received.
private final class RecoveredProgress: ResultWriter {
    private var tally: ProgressTally

    init(duration: Double, span: Double) { tally = ProgressTally(duration: duration, span: span) }

    var progress: ParticipantSession.StimulusProgress { tally.progress }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        tally.received(at: result.timestamp)
        tally.add(result)
    }

    func finish(_ end: InputEnd) throws {}
    func fail(_ error: MienError) {}
}
