public import Foundation
public import Mien

/// The models of this checkout (the tests run from the repository root).
public func repositoryModels() throws -> ModelStore {
    try ModelStore(directory: SampleMedia.repositoryRoot.appendingPathComponent("Models"))
}

/// The evaluation data's folder.
///
/// Tests that call it are marked to be skipped when the data is absent; an EVAL_DIR that names no folder is not
/// "absent", and then the tests run and fail here.
/// - Throws: `.notFound` naming EVAL_DIR when it is set to a folder that does not exist.
public func evaluationRoot() throws -> URL {
    switch SampleMedia.evaluationData {
    case .present(let url): return url
    case .missing(let path): throw MienError(.notFound, "EVAL_DIR names a folder that does not exist", input: path)
    case .absent: throw MienError(.notFound, "no evaluation data (the test should have been skipped)")
    }
}
