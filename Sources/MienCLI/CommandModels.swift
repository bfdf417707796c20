import Mien

/// Mien's models for a command: every command that runs them loads them here, so a missing or altered model
/// is reported the same way everywhere (named, exit status 3).
enum CommandModels {
    /// The model store (`MIEN_MODELS`, else the models beside the executable or in the checkout).
    /// - Throws: `ExitStatus.modelProblem` after reporting why the models cannot be used.
    static func load() throws -> ModelStore {
        do {
            return try ModelStore()
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.modelProblem
        }
    }
}
