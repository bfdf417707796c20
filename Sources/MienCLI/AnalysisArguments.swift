import ArgumentParser
import Foundation
import Mien

/// What the results of a file's analysis depend on, for the commands that analyse files into output folders
/// (`analyze`, `study`): the rate cap, the metric groups, episodes and shot cuts, re-identification and
/// detection, turned into one `DetectorOptions`.
struct AnalysisArguments: ParsableArguments {
    @Option(help: "Frames analysed per second at most (default: every frame of files, 5 for a camera).")
    var rate: Double?

    @OptionGroup var metrics: MetricArguments
    @OptionGroup(title: "Episodes and shot cuts") var episodes: EpisodeArguments

    @Flag(
        help: """
            Videos, cameras and continuous folders: a face that comes back within --reidentify-window gets its old \
            ID, baseline and appearance (dlib's face recognition network). Off by default: faces are biometric \
            data. Face descriptors stay in memory for the window and are never written.
            """)
    var reidentify = false

    @Option(help: "With --reidentify: minutes a lost face is remembered (default 10).")
    var reidentifyWindow: Double?

    @Option(
        help: ArgumentHelp(
            "Where the watched screen lies for onScreen: its centre's yaw and pitch from the camera's direction, "
                + "then its width and height, degrees as seen from the seat (default 0,-10,32,18: a 14\" laptop's "
                + "screen below its camera).", valueName: "yaw,pitch,width,height"))
    var screen: String?

    @OptionGroup var detection: DetectionArguments

    /// The detector's options for these flags.
    /// - Parameters:
    /// - Parameter landmarks: whether results carry the 68 points (OpenFace's CSV needs them).
    /// - Throws: `ValidationError` (exit 64) naming what is out of range.
    func detectorOptions(landmarks: Bool = false) throws -> DetectorOptions {
        let selected = try metrics.selected()
        do {
            return try DetectorOptions(
                detection: detection.options(), maxProcessRate: rate, metrics: selected, landmarks: landmarks,
                reidentification: reidentification(), episodes: episodes.settings(),
                shotCutThreshold: episodes.shotCuts(), screen: screenGeometry())
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    /// `--screen`, or the laptop's.
    private func screenGeometry() throws -> ScreenGeometry {
        guard let screen else { return .laptop }
        let values = screen.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard values.count == 4, let yaw = values[0], let pitch = values[1], let width = values[2],
            let height = values[3]
        else {
            throw ValidationError("--screen takes four numbers of degrees: yaw,pitch,width,height (got '\(screen)')")
        }
        return try ScreenGeometry(centreYaw: yaw, centrePitch: pitch, width: width, height: height)
    }

    /// `--reidentify` and its window, or nil.
    private func reidentification() throws -> ReidentificationOptions? {
        if reidentifyWindow != nil && !reidentify { throw ValidationError("--reidentify-window needs --reidentify") }
        guard reidentify else { return nil }
        return try reidentifyWindow.map { try ReidentificationOptions(window: $0 * 60) } ?? ReidentificationOptions()
    }
}
