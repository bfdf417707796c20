/// The share of a stimulus's time measured with a face, counted as the analysis counts it
/// (`StudyRecordingReader`): an analysed frame with a face stands for the time until the next analysed frame (the
/// first one also for one frame interval before it, the last for one frame interval after it); a frame without a face
/// stands for none.
///
/// Why the analysis's rule and not the time around each frame: a face in 1 frame of 5 (the others grey) measured
/// 77.5 % live, each face frame standing for 0.4 s around it, and was paid, while the analysis measured 1.3 % and
/// excluded it (issue 94). Live, any face counts; the analysis takes the face it judges the viewer's, the same when
/// one person sits in front of the camera.
import Mien

package struct FaceTime: Sendable {
    /// The stimulus's length, seconds (until a skip, once skipped).
    package private(set) var duration: Double
    private var first: (time: Double, face: Bool)?
    private var last: (time: Double, face: Bool)?
    private var count = 0
    /// Seconds credited to face frames that have a next frame.
    private var credited = 0.0

    package init(duration: Double) {
        self.duration = duration
    }

    /// An analysed frame at `time` seconds of stimulus time, with a face or not (frames come in time order).
    package mutating func add(_ time: Double, face: Bool) {
        guard time.isFinite else { return }
        if let last, last.face { credited += max(0, min(time, duration) - min(last.time, duration)) }
        if first == nil { first = (time, face) }
        last = (time, face)
        count += 1
    }

    /// The viewer skipped at `time` seconds: the share is of the part that played.
    package mutating func end(at time: Double) {
        guard time.isFinite, time > 0, time < duration else { return }
        duration = time
    }

    /// The share of `duration` with a face, 0...1, to three decimals; nil before any frame.
    package var share: Double? {
        guard let first, let last else { return nil }
        guard duration > 0 else { return 0 }
        // The frames' mean interval, as the analysis takes the recording's.
        let interval = count > 1 ? (last.time - first.time) / Double(count - 1) : 0
        var seconds = min(credited, duration)
        if first.face { seconds += min(interval, max(0, first.time)) }
        if last.face { seconds += max(0, min(last.time + interval, duration) - last.time) }
        return (min(1, seconds / duration) * 1000).rounded() / 1000
    }
}
