import Mien
import MienCore

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

    init(limits: CollectionSettings.Framing) { self.limits = limits }

    /// Judges one result measured at `time` (seconds).
    /// - Returns: true on the result that made the check pass (once).
    mutating func judge(_ result: DetectorResult, at time: Double) -> Bool {
        // A frame not analysed (dropped for want of time) says nothing either way.
        guard let faces = result.faces else { return false }
        guard faces.values.contains(where: fits) else {
            passingSince = nil
            return false
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
