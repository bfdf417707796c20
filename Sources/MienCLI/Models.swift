import ArgumentParser
import Foundation
import Mien

/// `mien models`: lists the models with their source, licence and checksum state.
struct Models: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List Mien's models (source package, licence) and check their SHA-256.")

    /// Source and licence of each model file, from the models folder's MANIFEST.json (empty when absent).
    private func provenance(in directory: URL) -> [String: (source: String, licence: String)] {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("MANIFEST.json")),
            let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let models = manifest["models"] as? [[String: Any]]
        else { return [:] }
        var result: [String: (source: String, licence: String)] = [:]
        for model in models {
            guard let file = model["file"] as? String else { continue }
            let source = model["source"] as? [String: Any]
            let package = "\(source?["package"] as? String ?? "?") \(source?["version"] as? String ?? "?")"
            let licence = (model["licence"] as? String ?? "?").split(separator: ";").first.map(String.init) ?? "?"
            result[file] = (package, licence)
        }
        return result
    }

    func run() throws {
        let store = try CommandModels.load()
        print("models directory: \(store.directory.path)")
        let sources = provenance(in: store.directory)
        var bad = false
        for model in ModelDescriptor.all {
            let origin = sources[model.fileName].map { "  from \($0.source)  licence \($0.licence)" } ?? ""
            switch store.verify(model) {
            case .success: print("ok       \(model.identifier)  \(model.fileName)  sha256 \(model.sha256)\(origin)")
            case .failure(let error):
                bad = true
                print("FAILED   \(model.identifier)  \(model.fileName)  \(error.message)\(origin)")
            }
        }
        if bad { throw ExitStatus.modelProblem }
    }
}
