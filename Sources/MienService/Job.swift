import Foundation
import Mien
import MienCore

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
final class JobProgress: ResultWriter, Sendable {
    /// Frames so far and the announced total: written by the detector's delivering thread, read by requests.
    private let state = Locked((frames: 0, total: Int?.none))

    func begin(_ info: SourceInfo) throws {
        state.withLock { $0.total = info.kind == .image ? 1 : info.frameCount }
    }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        state.withLock { $0.frames += 1 }
    }

    func finish(_ end: InputEnd) throws {}

    func fail(_ error: MienError) {}

    /// Frames so far and the announced total.
    var counts: (frames: Int, total: Int?) { state.withLock { ($0.frames, $0.total) } }
}
