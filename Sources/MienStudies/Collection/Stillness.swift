package import Mien
import MienCore

/// The longest stretch of a stimulus in which the face showed no natural movement: no blink, no turn of the head and
/// no change of expression, read from the face's landmarks and head pose (each of these moves them).
///
/// A stretch runs from a face frame while later face frames stay within `poseDegrees` of its head pose and every
/// landmark within `pointShare` of the face's width of where it was, relative to the face's box (so a photo moved
/// in front of the camera is as still as one held still). A frame that moves past either starts a new stretch; a
/// frame without a face ends it (that is the face share's business). The stretch is compared with its first frame,
/// not frame to frame, so a slow drift counts as movement once it adds up.
///
/// Why: a still photo looped for a stimulus (a virtual camera, a picture on a phone) earned a code and read as 100 %
/// watched (issue 94). Its frames give the same landmarks to the last digit; a living face, however still, blinks
/// every few seconds and its landmarks move by more than a percent of the face within a second (measured on the real
/// faces of `../shared/eval`: at most 0.4 s still). Why landmarks and not the expression scores: the scores are baseline
/// corrected (a photo's read 0 against its own baseline, as a resting face's do).
package struct Stillness: Sendable, Equatable {
    /// Head-pose change (yaw, pitch or roll), degrees, that counts as movement.
    package static let poseDegrees = 0.5
    /// Landmark displacement, as a share of the face's width, that counts as movement.
    package static let pointShare = 0.01

    private struct Pose: Sendable, Equatable {
        var time: Double
        var angles: [Double]
        var points: [Double]
    }

    private var start: Pose?
    /// Seconds of the longest still stretch so far.
    package private(set) var longest = 0.0

    package init() {}

    /// A frame at `time` seconds of stimulus time and the face taken as the viewer's (nil: none), in time order.
    package mutating func add(_ time: Double, face: FaceResult?) {
        guard time.isFinite, let face, let pose = Self.pose(face, at: time) else {
            start = nil
            return
        }
        guard let first = start, first.points.count == pose.points.count, !Self.moved(from: first, to: pose) else {
            start = pose
            return
        }
        longest = max(longest, time - first.time)
    }

    /// Whether a stimulus of `duration` seconds should be reviewed: still for `flagSeconds` (5 s) or, in a shorter
    /// stimulus, for 75 % of it (a run's first frames settle the tracker: a photo's first 0.4 s move), and never for
    /// less than `leastFlagSeconds`.
    ///
    /// Measured at 5 frames a second: the sample photo sent 30 times is still 5.4 s of 5.8 s; three real faces of
    /// `../shared/eval` (a talking head, two faces on video, 8–20 s) at most 0.4 s.
    package static func flagged(stillSeconds: Double, duration: Double) -> Bool {
        stillSeconds >= max(leastFlagSeconds, min(flagSeconds, 0.75 * duration)) - 1e-9
    }

    /// Seconds without natural movement that a viewer's stimulus is flagged for review at.
    package static let flagSeconds = 5.0
    /// The shortest stillness flagged, whatever the stimulus's length.
    package static let leastFlagSeconds = 1.5

    private static func pose(_ face: FaceResult, at time: Double) -> Pose? {
        let box = face.faceBounds
        guard box.width > 0, box.width.isFinite else { return nil }
        let points =
            face.facePoints ?? face.keypoints.map { keypoints in keypoints.keys.sorted().compactMap { keypoints[$0] } }
            ?? []
        guard !points.isEmpty else { return nil }
        let angles = face.orientation.map { [$0.yaw, $0.pitch, $0.roll] } ?? []
        let relative = points.flatMap { [($0.x - box.x) / box.width, ($0.y - box.y) / box.width] }
        return Pose(time: time, angles: angles, points: relative)
    }

    private static func moved(from first: Pose, to pose: Pose) -> Bool {
        if zip(first.angles, pose.angles).contains(where: { abs($0 - $1) >= poseDegrees }) { return true }
        var index = 0
        while index + 1 < pose.points.count {
            let dx = pose.points[index] - first.points[index]
            let dy = pose.points[index + 1] - first.points[index + 1]
            if (dx * dx + dy * dy).squareRoot() >= pointShare { return true }
            index += 2
        }
        return false
    }
}
