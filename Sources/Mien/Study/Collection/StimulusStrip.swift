import Foundation
import MienCore
import MienVision

/// Pictures of a collected study's stimulus along its time axis, for study.html (issue 80 item 5).
///
/// What was on screen when the curves rise and fall, read from the stimulus file the study folder keeps.
package enum StimulusStrip {
    /// Pictures per stimulus.
    package static let count = 6
    /// A picture's side, pixels (a square, the frame letterboxed in grey).
    static let side = 96

    /// One picture: the stimulus's time (seconds) and the frame as JPEG.
    package struct Picture: Sendable, Equatable {
        package var time: Double
        package var jpeg: [UInt8]
    }

    /// `count` pictures of the video at `path`, at the middles of equal parts of its `duration` (seconds).
    /// - Throws: `MienError` naming the file when it cannot be read.
    package static func pictures(path: String, duration: Double) throws -> [Picture] {
        guard duration > 0 else { return [] }
        let times = (0..<count).map { (Double($0) + 0.5) * duration / Double(count) }
        let source = try InputSource.open(path: path)
        var pictures: [Picture] = []
        while pictures.count < times.count, let frame = try source.nextFrame() {
            guard frame.timestamp >= times[pictures.count] - 1e-6 else { continue }
            let whole = Rect(x: 0, y: 0, width: Double(frame.width), height: Double(frame.height))
            let picture = try frame.thumbnail(of: whole, size: side, margin: 0)
            pictures.append(Picture(time: times[pictures.count], jpeg: try picture.encoded(as: .jpeg(quality: 80))))
        }
        return pictures
    }
}
