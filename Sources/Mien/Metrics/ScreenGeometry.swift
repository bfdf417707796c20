import MienCore

/// Where the screen a person watches lies, as they see it from their seat: its centre and size in degrees,
/// measured from the direction of the camera (`onScreen` reads it).
///
/// Angles, not centimetres, because a recording does not say how far the person sat or what lens the camera has:
/// the screen's extent in the viewer's field is what decides whether a gaze falls on it. Yaw is to the person's
/// left (+), pitch up (+), the gaze's convention (`Gaze`). The default, `laptop`, is a 14" laptop (31 × 17.5 cm)
/// watched from 55 cm with its camera centred above the screen: the screen spans 32° across and 18° down, from 1° below the
/// camera. A participant's own screen is found from where they looked while the framing check showed them their
/// picture (`centred(on:)`).
public struct ScreenGeometry: Sendable, Equatable, Codable {
    /// The screen centre's direction from the person, relative to the camera's, degrees (left +).
    public let centreYaw: Double
    /// The screen centre's direction from the person, relative to the camera's, degrees (up +; a screen below
    /// the camera is negative).
    public let centrePitch: Double
    /// The screen's width as seen from the person, degrees.
    public let width: Double
    /// The screen's height as seen from the person, degrees.
    public let height: Double

    /// - Throws: `.invalidOptions` for a centre beyond 60° of the camera or a size outside 1...150°.
    public init(centreYaw: Double, centrePitch: Double, width: Double, height: Double) throws {
        for (name, value) in [("centre yaw", centreYaw), ("centre pitch", centrePitch)]
        where !(value.isFinite && abs(value) <= 60) {
            throw MienError(.invalidOptions, "the screen's \(name) must be within 60° of the camera, got \(value)")
        }
        for (name, value) in [("width", width), ("height", height)] where !(value >= 1 && value <= 150) {
            throw MienError(.invalidOptions, "the screen's \(name) must be 1...150 degrees, got \(value)")
        }
        self.init(checked: centreYaw, centrePitch, width, height)
    }

    private init(checked centreYaw: Double, _ centrePitch: Double, _ width: Double, _ height: Double) {
        self.centreYaw = centreYaw
        self.centrePitch = centrePitch
        self.width = width
        self.height = height
    }

    /// A 14" laptop's screen (31 × 17.5 cm) from 55 cm, its camera centred 1 cm above the picture: 32° × 18°,
    /// centred 10° below the camera.
    public static let laptop = ScreenGeometry(checked: 0, -10, 32, 18)

    /// The same size, centred where the person looked (`yaw`, `pitch`: the gaze relative to the camera's direction,
    /// degrees, as `onScreen` measures it) while looking at the screen's centre; nil when that is beyond 60°.
    public func centred(onYaw yaw: Double, pitch: Double) -> ScreenGeometry? {
        guard yaw.isFinite, pitch.isFinite, abs(yaw) <= 60, abs(pitch) <= 60 else { return nil }
        return ScreenGeometry(checked: yaw, pitch, width, height)
    }

    /// The look at this screen's centre, from a look (`yaw`, `pitch`, degrees) at its point `x`, `y` (fractions of its
    /// width from the left and of its height from the top, as the person sees it): a point right of the centre is
    /// at a lower yaw (yaw grows to the person's left), a point above it at a higher pitch.
    package func centreLook(fromLook yaw: Double, pitch: Double, atX x: Double, y: Double) -> (
        yaw: Double, pitch: Double
    ) {
        (yaw + (x - 0.5) * width, pitch + (y - 0.5) * height)
    }

    /// How far (degrees) a look at (`yaw`, `pitch`) relative to the camera's direction falls outside the screen:
    /// 0 on it.
    func angleOutside(yaw: Double, pitch: Double) -> Double {
        let across = max(abs(yaw - centreYaw) - width / 2, 0)
        let down = max(abs(pitch - centrePitch) - height / 2, 0)
        return (across * across + down * down).squareRoot()
    }
}
