import Mien
import MienCore
import MienStudies

/// The framing check as the server judges it, so that a stimulus socket needs a check the server saw pass: a page
/// that skips the check, or a client with no page at all, never gets to a stimulus.
///
/// The rule is the page's (`CollectionSettings.Framing`): a face at least `minimumFacePixels` on its shorter side,
/// as bright as `minimumBrightness`, turned at most `maximumAngle` in yaw and pitch, on every result for
/// `seconds` without a break. The server is a little more lenient than the page, so that a page that passed is
/// never refused: any face on the frame may pass (the page looks at the first), and the unbroken run needs
/// `slack` of `seconds` (the page times the results as they reach it, the server as it writes them; the two
/// clocks differ by the network's jitter).
struct FramingJudge: Sendable {
    let limits: CollectionSettings.Framing
    /// Share of `limits.seconds` an unbroken run of passing results must last.
    static let slack = 0.75
    /// When the current run of passing results began (seconds on the caller's clock), nil when the last failed.
    private var passingSince: Double?
    /// Whether a run lasted long enough at some point (a face that moves away afterwards does not undo it: the
    /// page disables its button then, and the stimulus's own face share is what pays).
    private(set) var passed = false
    /// Where the fitting face looked on the passing run's results (degrees from the direction of the camera,
    /// `OnScreen.relativeLook`): the participant watching their own picture on the screen.
    private var looks: [(yaw: Double, pitch: Double)] = []
    /// Looks kept at most (a check lasts a few seconds at the study's rate).
    static let keptLooks = 300

    init(limits: CollectionSettings.Framing) { self.limits = limits }

    /// The median look of the check's passing results, once there are 5 or more: where the participant's screen
    /// is, seen from their seat (its centre, taken as where their preview sat); nil without gaze.
    var look: (yaw: Double, pitch: Double)? {
        guard looks.count >= 5 else { return nil }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }
        return (median(looks.map(\.yaw)), median(looks.map(\.pitch)))
    }

    /// Judges one result measured at `time` (seconds).
    /// - Returns: true on the result that made the check pass (once).
    mutating func judge(_ result: DetectorResult, at time: Double) -> Bool {
        // A frame not analysed (dropped for want of time) says nothing either way.
        guard let faces = result.faces else { return false }
        guard let face = faces.values.sorted(by: { $0.faceId < $1.faceId }).first(where: fits) else {
            passingSince = nil
            return false
        }
        if looks.count < Self.keptLooks, let gaze = face.gaze, let width = result.width, let height = result.height,
            let look = OnScreen.relativeLook(
                gaze: gaze, eyes: LookingAtCamera.eyes(of: face), in: FrameSize(width: width, height: height))
        {
            looks.append(look)
        }
        let since = passingSince ?? time
        passingSince = since
        guard !passed, time - since >= limits.seconds * Self.slack else { return false }
        passed = true
        return true
    }

    /// Whether a face meets every limit (a limit that was not measured fails, as on the page).
    func fits(_ face: FaceResult) -> Bool {
        guard min(face.faceBounds.width, face.faceBounds.height) >= limits.minimumFacePixels,
            let brightness = face.quality?.brightness, brightness >= limits.minimumBrightness,
            let pose = face.orientation
        else { return false }
        return abs(pose.yaw) <= limits.maximumAngle && abs(pose.pitch) <= limits.maximumAngle
    }
}
