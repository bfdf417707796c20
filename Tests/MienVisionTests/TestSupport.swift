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

/// The models of this checkout (the tests run from the repository root).
func repositoryModels() throws -> ModelStore {
    try ModelStore(directory: SampleMedia.repositoryRoot.appendingPathComponent("Models"))
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

/// The evaluation data's folder.
/// - Throws: `.notFound` naming EVAL_DIR when it is set to a folder that does not exist.
func evaluationRoot() throws -> URL {
    switch SampleMedia.evaluationData {
    case .present(let url): return url
    case .missing(let path): throw MienError(.notFound, "EVAL_DIR names a folder that does not exist", input: path)
    case .absent: throw MienError(.notFound, "no evaluation data (the test should have been skipped)")
    }
}
