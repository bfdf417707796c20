import Foundation
import Mien
import MienTesting
import Testing

/// A fresh folder under the system temporary directory, removed by the caller with `remove()`.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mien-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let path = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

extension Trait where Self == ConditionTrait {
    /// For tests that read the evaluation data (../shared/eval, or EVAL_DIR).
    ///
    /// Reported as skipped when it is absent, and then, under CI=true, `scripts/test-summary.sh` fails the
    /// run naming them. An EVAL_DIR that names no folder is not "absent": the tests run and fail on it
    /// (`evaluationRoot()`).
    static var needsEvaluationData: Self {
        .enabled(
            if: SampleMedia.evaluationData != .absent, "needs the evaluation data (../shared/eval or EVAL_DIR)")
    }
}
