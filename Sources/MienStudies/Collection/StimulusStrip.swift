import Foundation
import Mien
import MienCore

/// Pictures of a collected study's stimulus along its time axis, for study.html (issue 80 item 5).
///
/// What was on screen when the curves rise and fall, read from the stimulus file the study folder keeps by a
/// `Detector` (the one frame loop) feeding a writer that keeps the frame at each time. No face is looked for in an
/// advert: the detector runs with stages that find none.
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

    /// `count` pictures of the video at `path`, at the middles of equal parts of its `duration` (seconds): each the
    /// first frame at or after its time.
    /// - Throws: `MienError` naming the file when it cannot be read or a picture cannot be made of a frame.
    package static func pictures(path: String, duration: Double) async throws -> [Picture] {
        guard duration > 0 else { return [] }
        let times = (0..<count).map { (Double($0) + 0.5) * duration / Double(count) }
        let detector = Detector(
            source: .file(path: path), options: try DetectorOptions(detection: DetectionOptions()),
            stages: noFaces)
        let writer = Writer(times: times)
        let end = try await detector.run(writers: [writer])
        if let error = end.error { throw error }
        return writer.taken.withLock { $0 }
    }

    /// Stages that find no face: the strip wants the frames, not what is in them.
    private static let noFaces = DetectorStages { _ in (NoFaces(), NoFaces()) }

    private final class NoFaces: FaceDetecting, FaceMeshEstimating {
        func detect(in frame: Frame) throws -> [FaceDetection] { [] }
        func mesh(in frame: Frame, region: FaceRegion) throws -> FaceMesh {
            throw MienError(.internalFailure, "no face is looked for in a stimulus's pictures")
        }
    }

    /// Keeps the first frame at or after each of `times` as a picture.
    private final class Writer: ResultWriter, Sendable {
        let times: [Double]
        /// The pictures so far: written on the run's thread, read once the run has ended.
        let taken = Locked<[Picture]>([])

        init(times: [Double]) { self.times = times }

        var wantsFrames: Bool { true }

        func write(_ result: DetectorResult, frame: Frame?) throws {
            guard let frame else { return }
            let next = taken.withLock { $0.count }
            guard next < times.count, frame.timestamp >= times[next] - 1e-6 else { return }
            let whole = Rect(x: 0, y: 0, width: Double(frame.width), height: Double(frame.height))
            let jpeg = try frame.thumbnail(of: whole, size: StimulusStrip.side, margin: 0).encoded(
                as: .jpeg(quality: 80))
            taken.withLock { $0.append(Picture(time: times[next], jpeg: jpeg)) }
        }

        func finish(_ end: InputEnd) throws {}
        func fail(_ error: MienError) {}
    }
}
