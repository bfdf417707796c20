import Foundation

/// Whether the person looks into the camera (eye contact with the viewer of a recording, a webcam call's
/// "looking at you"), 0...100, from where they look (`Gaze`) and where their eyes are in the frame.
///
/// The measure is the angle between the gaze and the direction from the eyes to the camera. That direction
/// depends on where the eyes are in the picture: a face at the frame's right edge looks into the camera when
/// its gaze turns left of straight ahead. The camera is taken as a pinhole at the frame's centre whose focal
/// length is the frame's longer side (a 53° field of view across a 4:3 frame's width, within a webcam's usual
/// 50-65°), since recordings do not carry their camera's intrinsics; the eyes are the mean of the iris
/// centres.
///
/// The score is 100 within 10° of the camera, 0 beyond 20°, and falls linearly between. Mien's gaze is off by
/// 6° (yaw) to 9° (pitch) on average on Pointing'04, so a narrower cone would miss people who do look into
/// the camera; Pointing'04's neighbouring targets are 15° apart, so 15° (score 50) lies between the camera
/// and the next thing a person could be looking at. Absent when the gaze is (eyes closed, face too small or
/// turned beyond the gaze's limits).
package enum LookingAtCamera {
    /// Within this angle (degrees) the score is 100.
    static let fullAngle = 10.0
    /// Beyond this angle (degrees) the score is 0.
    static let noneAngle = 20.0

    /// The catalog's entry: the gaze group's, on whenever gaze is.
    static let entry = MetricDescriptor.derived(
        "lookingAtCamera", group: .gaze, stage: .gaze, needs: [.gaze],
        doc: "How directly the person looks into the camera: 100 within 10° of it, 0 beyond 20° (from the gaze and "
            + "where the eyes are in the frame).", derive: { face, size, _ in score(of: face, in: size) })

    /// The face's score in a frame of `size`, nil when its gaze was not measured.
    static func score(of face: FaceResult, in size: FrameSize) -> Double? {
        guard let gaze = face.gaze, let angle = angle(gaze: gaze, eyes: eyes(of: face), in: size) else { return nil }
        return 100 * min(max((noneAngle - angle) / (noneAngle - fullAngle), 0), 1)
    }

    /// The angle (degrees) between the gaze and the direction from `eyes` (frame pixels) to the camera.
    package static func angle(gaze: Gaze, eyes: Point, in size: FrameSize) -> Double? {
        let focal = Double(max(size.width, size.height))
        guard focal > 0 else { return nil }
        let radians = Double.pi / 180
        let (yaw, pitch) = (gaze.yaw * radians, gaze.pitch * radians)
        // Camera space: x to the image's right, y down, z away from the camera. Gaze yaw > 0 looks to the
        // person's left, which is the image's right; pitch > 0 looks up.
        let look = (x: sin(yaw) * cos(pitch), y: -sin(pitch), z: -cos(yaw) * cos(pitch))
        let eye = (x: (eyes.x - Double(size.width) / 2) / focal, y: (eyes.y - Double(size.height) / 2) / focal)
        let length = (eye.x * eye.x + eye.y * eye.y + 1).squareRoot()
        let toCamera = (x: -eye.x / length, y: -eye.y / length, z: -1 / length)
        let cosine = look.x * toCamera.x + look.y * toCamera.y + look.z * toCamera.z
        return acos(min(max(cosine, -1), 1)) / radians
    }

    /// The mean of the measured iris centres, or the box's centre when no eye has one.
    package static func eyes(of face: FaceResult) -> Point {
        let irises = [face.gaze?.left?.origin, face.gaze?.right?.origin].compactMap { $0 }
        guard !irises.isEmpty else { return face.faceBounds.center }
        let count = Double(irises.count)
        return Point(x: irises.map(\.x).reduce(0, +) / count, y: irises.map(\.y).reduce(0, +) / count)
    }
}
