import Mien

/// The version every artifact carries (the tarball, the Debian package, the container image, the wheel):
/// `number` is the release (SemVer; `make dist` reads it from this file), `commit` the checkout it was built
/// from.
enum MienVersion {
    static let number = "0.1.0"
    /// The git commit of the build (short hash, "-dirty" for uncommitted changes, "unknown" outside git),
    /// written by the BuildInfo plugin.
    static let commit = buildCommit
    /// What `mien --version` prints and the shard manifests and reports record as their generator.
    static var string: String {
        "mien \(number) (commit \(commit); OpenCV \(openCVVersion), OpenVINO \(InferenceCore.version))"
    }
}
