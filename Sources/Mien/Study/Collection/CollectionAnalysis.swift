import Foundation

/// How a collected study's frames are analysed: as `mien study` analyses a recording with no analysis flags
/// (every metric, the default face detection, episodes and shot cuts), so a participant measured live and
/// the same participant's webcam recording analysed later by `mien study` are measured alike.
///
/// One difference, which changes nothing for a recording: a rate cap of `analysisRate`. Pushed frames are a
/// live source, whose default cap is Affdex's 5 per second; it left half of a 10 fps study's frames unanalysed
/// (`MienDev bench-study`: 100 of 200 for one participant). The study's own rate is enforced as frames arrive.
package enum CollectionAnalysis {
    /// Frames per second analysed at most: above any study's rate (30 at most), so no frame that arrived is left
    /// out by the cap's grid when the page's timer jitters.
    package static let analysisRate = 100.0

    /// The detector options of every stimulus socket.
    package static var options: DetectorOptions {
        get throws {
            try DetectorOptions(
                detection: DetectionOptions(), maxProcessRate: analysisRate, metrics: MetricGroup.metrics(named: []))
        }
    }
}
