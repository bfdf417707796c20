import Foundation
import MienCore

/// Whether the person looks at the screen they watch (`ScreenGeometry`), 0...100, from where they look (`Gaze`)
/// and where their eyes are in the frame.
///
/// The gaze is taken relative to the direction from the eyes to the camera (the camera as `LookingAtCamera` models
/// it: a pinhole at the frame's centre whose focal length is the frame's longer side), so a face off the frame's
/// centre is read as the camera sees it; the screen is a rectangle of angles around that direction. The score is
/// 100 when the gaze falls on the screen or within 20° of its edge, 0 when it falls 30° or more beyond, linear
/// between: Mien's gaze is off by 8° on average in each angle on Pointing'04 (biased 9° up), so a narrower slack
/// called a person facing the screen away too often. Measured on Pointing'04 with a screen 30° × 30° around the
/// camera (issue 95 item 7): with the earlier 5° / 15°, looks within 15° of the camera read as on the screen in
/// 75.7 % (a talking head's pitch of 9-17° while speaking fell off a laptop's screen); with 20° / 30°, 96.5 %, and
/// heads turned 45° or more read as away with ROC-AUC 0.993 (was 0.938; 30° or more: 0.934, was 0.921). The price:
/// a look 30° from the camera reads as on that screen in 16 % (was 3 %). A face turned beyond the gaze's limits (head yaw past 60° or
/// pitch past 50°) is not looking at the screen: 0. Absent when the gaze is not measured otherwise (eyes closed,
/// the face too small): `eyesClosed` says which, and a study counts such a frame as neither watching nor not.
package enum OnScreen {
    /// Within this angle (degrees) beyond the screen's edge the score is 100.
    static let fullAngle = 20.0
    /// From this angle (degrees) beyond the screen's edge the score is 0.
    static let noneAngle = 30.0

    /// The catalog's entry: the gaze group's, on whenever gaze is.
    static let entry = MetricDescriptor.derived(
        "onScreen", group: .gaze, stage: .gaze, needs: [.gaze],
        doc: "Whether the person looks at the screen: 100 on it or within 20° of its edge, 0 from 30° beyond or "
            + "with the head turned away (from the gaze, where the eyes are in the frame and the screen's place, "
            + "by default a laptop's below its camera).", derive: score(of:in:options:))

    /// The face's score in a frame of `size` for the screen `options` describe; nil when its gaze was not measured
    /// and its head is not turned away.
    static func score(of face: FaceResult, in size: FrameSize, options: DetectorOptions) -> Double? {
        guard let gaze = face.gaze else {
            guard let pose = face.orientation else { return nil }
            let limits = GazeEstimator.Limits()
            return abs(pose.yaw) > limits.maximumYaw || abs(pose.pitch) > limits.maximumPitch ? 0 : nil
        }
        guard let look = relativeLook(gaze: gaze, eyes: LookingAtCamera.eyes(of: face), in: size) else { return nil }
        let outside = options.screen.angleOutside(yaw: look.yaw, pitch: look.pitch)
        return 100 * min(max((noneAngle - outside) / (noneAngle - fullAngle), 0), 1)
    }

    /// The gaze's direction (degrees, the gaze's convention) relative to the direction from `eyes` (frame pixels)
    /// to the camera: (0, 0) looks into the camera.
    package static func relativeLook(gaze: Gaze, eyes: Point, in size: FrameSize) -> (yaw: Double, pitch: Double)? {
        let focal = Double(max(size.width, size.height))
        guard focal > 0 else { return nil }
        let degrees = 180 / Double.pi
        // Camera space as in `LookingAtCamera`: x to the image's right, y down, z away from the camera. The
        // direction to the camera is (-x, -y, -1) from the eyes; its yaw and pitch in the gaze's convention.
        let eye = (x: (eyes.x - Double(size.width) / 2) / focal, y: (eyes.y - Double(size.height) / 2) / focal)
        let yawToCamera = atan2(-eye.x, 1) * degrees
        let pitchToCamera = atan2(eye.y, (1 + eye.x * eye.x).squareRoot()) * degrees
        return (gaze.yaw - yawToCamera, gaze.pitch - pitchToCamera)
    }
}
