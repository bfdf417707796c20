import ArgumentParser
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
                shotCutThreshold: episodes.shotCuts())
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    /// `--reidentify` and its window, or nil.
    private func reidentification() throws -> ReidentificationOptions? {
        if reidentifyWindow != nil && !reidentify { throw ValidationError("--reidentify-window needs --reidentify") }
        guard reidentify else { return nil }
        return try reidentifyWindow.map { try ReidentificationOptions(window: $0 * 60) } ?? ReidentificationOptions()
    }
}
