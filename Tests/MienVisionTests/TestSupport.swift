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

/// The evaluation data, or nil after saying loudly that the test is skipped.
func evaluationData(for test: String) -> URL? {
    guard let url = SampleMedia.evaluationDirectory else {
        print("SKIPPED \(test): ../shared/eval (or EVAL_DIR) is not present")
        return nil
    }
    return url
}

/// Catches the `MienError` a throwing expression raises.
func mienError(_ body: () throws -> Void) -> MienError? {
    do {
        try body()
        return nil
    } catch let error as MienError {
        return error
    } catch {
        return MienError(.internalFailure, "unexpected \(error)")
    }
}
