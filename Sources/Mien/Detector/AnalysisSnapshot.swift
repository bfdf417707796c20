import Foundation
import MienCore

/// The analysis of a stream after one frame: what a resumed run restores to go on from the next frame instead
/// of analysing the earlier ones again (`mien analyze --resume`).
///
/// Taken while a video or continuous pictures are analysed (`DetectorOptions.snapshotInterval`), and handed to
/// the writers that keep one (`SnapshotKeeping`) after the frame's result: a kept snapshot never runs ahead of
/// the outputs. It holds the tracked faces with their IDs, filters and re-identification gallery, each face's
/// neutral baseline, emotion window and appearance aggregate, the face count, the shot-cut detector, the rate
/// cap's grid and the open episodes and blinks: everything the next frame's analysis reads from earlier ones.
/// It holds no pixels, but re-identification's descriptors are biometric data: a writer keeps it only until
/// its input is complete.
package struct AnalysisSnapshot: Sendable, Codable {
    /// The layout of this type; a snapshot of another layout is refused.
    package static let currentFormat = 1

    package var format = Self.currentFormat
    /// The last frame analysed (and written) before the snapshot was taken.
    package var afterFrame: Int
    /// That frame's time, seconds.
    package var timestamp: Double
    /// The first stage: tracking, face count, re-identification, shot cuts and the rate cap.
    var locating: DetectorEngine.LocatingState
    /// The second stage: baselines, emotion windows and appearance.
    var measuring: FaceMeasurer.State
    /// The episode finder (nil with episodes off).
    var episodes: EpisodeTracker.State?
}

/// A writer that keeps the detector's snapshots (`AnalysisSnapshot`), each after the result of its frame.
package protocol SnapshotKeeping: ResultWriter {
    /// Keeps `snapshot`, replacing the one kept before.
    /// - Throws: when it cannot be kept (the run fails, as for any writer's failure).
    func keep(_ snapshot: AnalysisSnapshot) throws
}

/// A snapshot a run restores (`DetectorOptions.restoring`): equal to another only if it is the same one loaded.
package struct RestoredAnalysis: Sendable, Equatable {
    package let snapshot: AnalysisSnapshot
    private let id = UUID()

    package init(_ snapshot: AnalysisSnapshot) { self.snapshot = snapshot }

    package static func == (left: RestoredAnalysis, right: RestoredAnalysis) -> Bool { left.id == right.id }
}
