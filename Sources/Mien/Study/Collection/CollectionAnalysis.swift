import Foundation

/// How a collected study's frames are analysed: as `mien study` analyses a recording with no analysis flags
/// (every metric, the default face detection, episodes and shot cuts), so a participant measured live and
/// the same participant's webcam recording analysed later by `mien study` are measured alike.
package enum CollectionAnalysis {
    /// The detector options of every stimulus socket.
    package static var options: DetectorOptions {
        get throws { try DetectorOptions(detection: DetectionOptions(), metrics: MetricGroup.metrics(named: [])) }
    }
}
