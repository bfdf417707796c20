import Mien

/// The version `mien --version` prints.
enum MienVersion {
    static let number = "0.1.0"
    static var string: String { "mien \(number) (OpenCV \(openCVVersion), OpenVINO \(InferenceCore.version))" }
}
