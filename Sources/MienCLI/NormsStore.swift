import ArgumentParser
import Foundation
import Mien
import MienService
import MienStudies

/// Where `mien norms` and `mien study --norms` keep a norm: a file (the default), or a norm of that name in a study
/// database (`--store`).
struct NormsStore {
    /// The file, or the norm's name in the database.
    var norms: String
    /// The database's URL (nil: `norms` is a file).
    var url: String?

    /// The norm as messages name it (a database without its password).
    var description: String {
        url.map { "norm \(norms) in \(MienService.redactedDatabaseURL($0))" } ?? norms
    }

    /// The norm's content (empty when there is none yet).
    /// - Throws: `MienError` naming the store.
    func read() throws -> NormSet {
        guard let url else { return try NormsFile(path: norms).read() }
        let name = norms
        return try Blocking.run { try await NormsDatabase.read(url: url, name: name) }
    }

    /// Runs `body` on the norm in one transaction of its store and keeps what it leaves (nothing when it throws).
    /// - Throws: what `body` throws; `MienError` naming the store.
    func transact<Result: Sendable>(_ body: @escaping @Sendable (inout NormSet) throws -> Result) throws -> Result {
        guard let url else { return try NormsFile(path: norms).transact(body) }
        let name = norms
        return try Blocking.run { try await NormsDatabase.transact(url: url, name: name, body) }
    }
}

/// `--store` and `--store-file`, as `mien study` takes them: the database a norm is kept in.
struct NormsStoreArguments: ParsableArguments {
    @Option(
        help:
            "Keep the norm in this PostgreSQL database (postgres://USER:PASSWORD@HOST:PORT/DATABASE, a study database of mien serve --store); NORMS is then the norm's name in it."
    )
    var store: String?

    @Option(help: "A file whose first line is the --store URL (keeps its password off the command line).")
    var storeFile: String?

    /// The store `norms` names.
    func store(_ norms: String, command: String) throws -> NormsStore {
        let url = (store != nil || storeFile != nil) ? try Secret.store.resolve(store, file: storeFile) : nil
        if url != nil {
            Secret.warnIfPasswordInArguments(store, option: "--store", command: command)
            guard CollectionSettings.isName(norms) else {
                throw ValidationError("'\(norms)' is not a norm's name (letters, digits, '-' and '_')")
            }
        }
        return NormsStore(norms: norms, url: url)
    }
}
