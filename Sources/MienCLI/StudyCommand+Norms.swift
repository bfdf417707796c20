import ArgumentParser
import Foundation
import Mien
import MienStudies

/// `mien study --norms`: each stimulus placed against a norm of the team's own (`mien norms`).
extension StudyCommand {
    /// The norm `--norms` names with `--norm-filter`'s filters, read; nil without `--norms`.
    /// - Parameter store: the database the study is read from (`--store`): `--norms` then names a norm in it.
    /// - Throws: `ValidationError` for bad filters; `ExitStatus.inputFailed` when the norm cannot be read (said).
    func norm(store: String?) throws -> NormComparison.Norm? {
        guard let norms else {
            if !normFilter.isEmpty { throw ValidationError("--norm-filter filters a norm: give it with --norms") }
            return nil
        }
        let filters: [String: String]
        do {
            filters = try NormEntry.tags(normFilter, option: "--norm-filter")
        } catch let error as MienError {
            throw ValidationError(error.description)
        }
        if store != nil, !CollectionSettings.isName(norms) {
            throw ValidationError(
                "--norms \(norms): with --store, a norm's name in the database (letters, digits, '-', '_')")
        }
        let source = NormsStore(norms: norms, url: store)
        do {
            return NormComparison.Norm(source: source.description, filters: filters, entries: try source.read().entries)
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
    }
}
