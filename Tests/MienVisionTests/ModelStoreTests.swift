import Foundation
import Mien
import MienTesting
import Testing

@Suite("Models: checksums, tampering and the manifest")
struct ModelStoreTests {
    @Test func shippedModels_matchTheirChecksums() throws {
        let store = try repositoryModels()
        for model in ModelDescriptor.all {
            #expect((try? store.verify(model).get()) != nil, "\(model.fileName)")
        }
    }

    @Test func manifest_andLibraryCatalog_agree() throws {
        let url = SampleMedia.repositoryRoot.appendingPathComponent("Models/MANIFEST.json")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let entries = try #require(manifest?["models"] as? [[String: Any]])
        let fromManifest = Dictionary(
            uniqueKeysWithValues: entries.compactMap { e in
                (e["file"] as? String).map { ($0, e["sha256"] as? String ?? "") }
            })
        for model in ModelDescriptor.all { #expect(fromManifest[model.fileName] == model.sha256, "\(model.fileName)") }
    }

    @Test func tamperedModel_isRefusedByName() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let source = SampleMedia.repositoryRoot.appendingPathComponent("Models")
        for name in ["MANIFEST.json", ModelDescriptor.blazeFaceShortRange.fileName] {
            try FileManager.default.copyItem(
                at: source.appendingPathComponent(name), to: scratch.url.appendingPathComponent(name))
        }
        let file = scratch.url.appendingPathComponent(ModelDescriptor.blazeFaceShortRange.fileName)
        var bytes = [UInt8](try Data(contentsOf: file))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: file)
        let store = try ModelStore(directory: scratch.url)
        let altered = mienError {
            _ = try BlazeFaceDetector(options: DetectionOptions(faceMode: .large), models: store)
        }
        #expect(altered?.code == .modelAltered)
        #expect(altered?.input == file.path)
        let missing = mienError {
            _ = try BlazeFaceDetector(options: DetectionOptions(faceMode: .small), models: store)
        }
        #expect(missing?.code == .modelMissing)
        #expect(missing?.input?.hasSuffix(ModelDescriptor.blazeFaceFullRange.fileName) == true)
    }

    @Test func directoryWithoutManifest_isAModelMissingError() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(mienError { _ = try ModelStore(directory: scratch.url) }?.code == .modelMissing)
    }
}
