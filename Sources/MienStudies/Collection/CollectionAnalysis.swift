import Foundation
package import Mien
import MienCore

/// How a collected study's frames are analysed: as `mien study` analyses a recording with no analysis flags
/// (every metric, the default face detection, episodes and shot cuts), so a participant measured live and
/// the same participant's webcam recording analysed later by `mien study` are measured alike, less what the
/// study chose not to store (`CollectionSettings.Stored`: appearance estimates are then not measured at all,
/// landmarks not written).
///
/// One difference, which changes nothing for a recording: a rate cap of `analysisRate`. Pushed frames are a
/// live source, whose default cap is Affdex's 5 per second; it left half of a 10 fps study's frames unanalysed
/// (`MienDev bench-study`: 100 of 200 for one participant). The study's own rate is enforced as frames arrive.
package enum CollectionAnalysis {
    /// Frames per second analysed at most: above any study's rate (30 at most), so no frame that arrived is left
    /// out by the cap's grid when the page's timer jitters.
    package static let analysisRate = 100.0

    /// The detector options of every stimulus socket of a study with `stored`, for a participant whose screen lies
    /// where `screen` says (their framing check's, or a laptop's).
    package static func options(_ stored: CollectionSettings.Stored = .init(), screen: ScreenGeometry = .laptop) throws
        -> DetectorOptions
    {
        var metrics = try MetricGroup.metrics(named: [])
        if !stored.appearance { metrics.subtract(MetricGroup.appearance.metrics) }
        return try DetectorOptions(
            detection: DetectionOptions(), maxProcessRate: analysisRate, metrics: metrics, screen: screen)
    }

    /// `writers` as the study stores: without landmarks when it keeps none.
    package static func writers(_ writers: [any ResultWriter], stored: CollectionSettings.Stored) -> [any ResultWriter]
    {
        stored.landmarks ? writers : writers.map { WithoutLandmarks($0) }
    }
}

/// Hands a writer each result without the faces' points (the 34 Affdex points and the detector's keypoints).
private final class WithoutLandmarks: ResultWriter {
    private let inner: any ResultWriter

    init(_ inner: any ResultWriter) { self.inner = inner }

    var wantsFrames: Bool { inner.wantsFrames }
    func begin(_ info: SourceInfo) throws { try inner.begin(info) }
    func write(_ result: DetectorResult, frame: Frame?) throws {
        var stripped = result
        stripped.faces = result.faces?.mapValues { face in
            var face = face
            face.facePoints = nil
            face.keypoints = nil
            return face
        }
        try inner.write(stripped, frame: frame)
    }
    func unreadable(_ error: MienError) { inner.unreadable(error) }
    func finishEpisodes(_ episodes: [EpisodeEvent]) throws { try inner.finishEpisodes(episodes) }
    func finish(_ end: InputEnd) throws { try inner.finish(end) }
    func fail(_ error: MienError) { inner.fail(error) }
}
