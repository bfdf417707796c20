import Foundation
import Mien

/// What `GET /v1/jobs/{id}` says about one job: its state, progress and outputs.
struct JobStatus: Codable, Sendable, Equatable {
    /// `queued`, `running`, `done` (every frame analysed), `failed` (the input could not be read, or a frame
    /// failed; `error` says why), `cancelled` (by `DELETE`) or `interrupted` (the service stopped mid-job).
    enum State: String, Codable, Sendable {
        case queued, running, done, failed, cancelled, interrupted
    }

    var id: String
    var state: State
    /// The upload's name (the `name` query parameter, or "upload").
    var input: String
    /// The settings the job is analysed with.
    var settings: AnalysisSettings
    /// Frames analysed so far (processed or not).
    var frames: Int
    /// Frames the input announces (a video's frame count; 1 for a picture), when known.
    var totalFrames: Int?
    /// `frames / totalFrames`, 0...1, when the total is known.
    var progress: Double?
    /// Why the job failed or was interrupted.
    var error: ErrorBody.Detail?
    /// The job's outputs, once `done` (relative URLs).
    var results: [String: String]?
}

/// Counts a job's frames as the detector writes them (a writer like the others, so the progress is the
/// pipeline's own).
final class JobProgress: ResultWriter, @unchecked Sendable {
    // Written by the detector's delivering thread, read by requests: behind `lock`.
    private let lock = NSLock()
    private var frames = 0
    private var total: Int?

    func begin(_ info: SourceInfo) throws {
        lock.withLock { total = info.kind == .image ? 1 : info.frameCount }
    }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        lock.withLock { frames += 1 }
    }

    func finish(_ end: InputEnd) throws {}

    func fail(_ error: MienError) {}

    /// Frames so far and the announced total.
    var counts: (frames: Int, total: Int?) { lock.withLock { (frames, total) } }
}
