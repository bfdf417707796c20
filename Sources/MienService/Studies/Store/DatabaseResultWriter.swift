import Foundation
import Mien
import MienCore

/// A stimulus attempt's results kept in the study's database as they are measured: the JSON Lines the
/// participant's `.jsonl` file holds, byte for byte, in batches of at most `batchFrames` frames or
/// `batchInterval` of time, then at the end the episodes still open and the summary (`.summary.json`'s bytes).
///
/// The CSV and events files are not stored: `mien study export` makes them from these lines with the same writers,
/// as a killed server's files are recovered from its checkpoint. Frames are sent off the writer's thread
/// (`ResultUpload`); the end waits until every batch is kept, so a stimulus is recorded as watched only once the
/// database holds all of it.
final class DatabaseResultWriter: ResultWriter {
    private let upload: ResultUpload
    private let encoder = JSONLinesWriter.makeEncoder()
    private let summary: SummaryWriter
    private let summaryBytes = Locked(Data())
    private let clock = ContinuousClock()
    private var lines = Data()
    private var frames = 0
    private var batches = 0
    private var batchStart: ContinuousClock.Instant?
    private var finalEpisodes: [EpisodeEvent] = []
    /// How long the end may wait for the database to keep what waits.
    private let endDeadline: Duration
    /// How long the end may wait in all while the database does not answer (an outage, a failover).
    private let awayDeadline: Duration
    /// Told once when the end waits past `endDeadline` for a database that does not answer.
    private let onWaiting: @Sendable () -> Void
    /// Frames per batch at most.
    private let batchFrames: Int

    /// Time a measured frame waits for its batch at most: what a killed server loses of an attempt it ran.
    static let batchInterval = Duration.seconds(1)

    /// - Parameters:
    ///   - input: the stimulus's name, as the summary records it.
    ///   - batchFrames: frames per batch at most (50: 5 s at 10 fps; the interval cuts batches first then).
    ///   - endDeadline: how long the end may wait for a database that answers to keep what waits.
    ///   - awayDeadline: how long the end may wait in all while the database does not answer (then it is not
    ///     saved); 3 min by default, longer than the failover of a managed PostgreSQL (typically 60-120 s).
    ///   - onWaiting: told once when the end waits past `endDeadline` (the page says it is saving).
    init(
        upload: ResultUpload, input: String, batchFrames: Int = 50, endDeadline: Duration = .seconds(20),
        awayDeadline: Duration = .seconds(180), onWaiting: @escaping @Sendable () -> Void = {}
    ) {
        self.upload = upload
        self.batchFrames = batchFrames
        self.endDeadline = endDeadline
        self.awayDeadline = awayDeadline
        self.onWaiting = onWaiting
        let bytes = summaryBytes
        summary = SummaryWriter(input: input) { data in bytes.withLock { $0 = data } }
    }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        var line = try encoder.encode(result)
        line.append(UInt8(ascii: "\n"))
        lines.append(line)
        frames += 1
        try summary.write(result, frame: nil)
        let now = clock.now
        let start = batchStart ?? now
        batchStart = start
        if frames >= batchFrames || now - start >= Self.batchInterval { try flush() }
    }

    func unreadable(_ error: MienError) { summary.unreadable(error) }

    func finishEpisodes(_ episodes: [EpisodeEvent]) throws {
        finalEpisodes = episodes
        try summary.finishEpisodes(episodes)
    }

    func finish(_ end: InputEnd) throws {
        try flush()
        try summary.finish(end)
        try upload.finish(
            ResultEnd(
                batches: batches, episodes: try encoder.encode(finalEpisodes), summary: summaryBytes.withLock { $0 }),
            within: endDeadline, whileAway: awayDeadline, onWaiting: onWaiting)
    }

    func fail(_ error: MienError) { upload.abandon() }

    private func flush() throws {
        guard frames > 0 else { return }
        try upload.send(.batch(number: batches, frames: frames, lines: lines))
        batches += 1
        frames = 0
        lines = Data()
        batchStart = nil
    }
}
