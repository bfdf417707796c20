import ArgumentParser
import Foundation
import Mien

/// `mien models`: lists the models with their checksum state.
struct Models: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List Mien's models and check their SHA-256.")

    func run() throws {
        let store: ModelStore
        do {
            store = try ModelStore()
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.modelProblem
        }
        print("models directory: \(store.directory.path)")
        var bad = false
        for model in ModelDescriptor.all {
            switch store.verify(model) {
            case .success: print("ok       \(model.identifier)  \(model.fileName)  sha256 \(model.sha256)")
            case .failure(let error):
                bad = true
                print("FAILED   \(model.identifier)  \(model.fileName)  \(error.message)")
            }
        }
        if bad { throw ExitStatus.modelProblem }
    }
}
