internal import COpenVINO
import Foundation
import MienCore

/// Owns the process's `ov_core_t`: OpenVINO's entry point, which finds the CPU plugin and the front ends
/// and compiles models.
///
/// One core serves every network, and keeps the networks it compiled (see `compiledModel`). A core is
/// safe to use from several threads (OpenVINO documents `ov::Core` as thread-safe) and Mien's own state
/// in it is behind a lock, hence `@unchecked Sendable` (for the C handle alone).
package final class InferenceCore: @unchecked Sendable {
    let handle: OpaquePointer
    /// The networks compiled so far.
    private let compiled = Locked<[CompiledKey: CompiledModel]>([:])

    /// A compiled model is the model's bytes (named by their SHA-256) under given settings.
    private struct CompiledKey: Hashable {
        var sha256: String
        var settings: InferenceSettings
    }

    /// The process-wide core, created on first use.
    package static func shared() throws -> InferenceCore {
        try sharedCore.get()
    }

    private static let sharedCore: Result<InferenceCore, MienError> = {
        do {
            return .success(try InferenceCore())
        } catch let error as MienError {
            return .failure(error)
        } catch {
            return .failure(MienError(.internalFailure, "\(error)", input: "OpenVINO"))
        }
    }()

    /// Creates the core, with no compiled-model cache on disk.
    ///
    /// Why no `CACHE_DIR`: measured on the 2-core machine, importing the cached mesh took 220 ms against
    /// 193 ms to compile it from the ONNX file, in a separate process each. Compiling in parallel
    /// (`prepare`) and once per process is what helps.
    private init() throws {
        var core: OpaquePointer? = nil
        try openVINOCall(model: "OpenVINO", "load the runtime for") { ov_core_create(&core) }
        guard let core else { throw MienError(.internalFailure, "no OpenVINO core", input: "OpenVINO") }
        handle = core
    }

    deinit { ov_core_free(handle) }

    /// OpenVINO's version, such as "2026.4.1-22982-...".
    package static var version: String {
        var version = ov_version_t()
        guard ov_get_openvino_version(&version) == OK else { return "unknown" }
        defer { ov_version_free(&version) }
        return version.buildNumber.map { String(cString: $0) } ?? "unknown"
    }

    /// The compiled form of `model` under `settings`, compiled on first use and kept for the process's
    /// life, so that every Detector after the first (a test suite, a server's sessions) starts without
    /// compiling.
    ///
    /// The file is read and its SHA-256 checked on every call, cached or not: an altered model is an error
    /// whatever ran before. Two threads asking for the same uncompiled model both compile it; the first to
    /// finish is kept (wasted work in a race that `prepare` avoids, never a wrong model).
    func compiledModel(_ model: ModelDescriptor, store: ModelStore, settings: InferenceSettings) throws
        -> CompiledModel
    {
        let key: CompiledKey
        let source: SourceModel
        // The file's bytes are released before compiling: start-up sets Mien's peak memory, and the
        // compiler holds the model again (the age network is 10.7 MB).
        do {
            let bytes = try store.bytes(of: model)
            key = CompiledKey(sha256: model.sha256, settings: settings)
            if let cached = compiled.withLock({ $0[key] }) { return cached }
            source = try SourceModel(core: self, bytes: bytes, file: store.url(of: model))
        }
        let made = try CompiledModel(core: self, source: source, name: model.fileName, settings: settings)
        return compiled.withLock { compiled in
            if let first = compiled[key] { return first }
            compiled[key] = made
            return made
        }
    }

    /// Compiles `models` (with their default settings) on all cores at once, ahead of the stages that load
    /// them one by one: compiling is mostly kernel generation on one thread, 90–180 ms per network, so
    /// the three networks of `mien detect --expressions` are ready in about half the time.
    ///
    /// Failures are ignored here: the stage that loads the model reports them, in pipeline order.
    /// - Parameter settings: the settings a stage will load a model with when they are not the model's own
    ///   `inferenceSettings` (so that what is compiled here is what the stage asks for).
    package static func prepare(
        _ models: [ModelDescriptor], store: ModelStore, settings: [ModelDescriptor: InferenceSettings] = [:]
    ) {
        guard let core = try? shared(), models.count > 1 else { return }
        let pending = models.map { ($0, settings[$0] ?? $0.inferenceSettings) }.filter { model, settings in
            core.compiled.withLock { $0[CompiledKey(sha256: model.sha256, settings: settings)] } == nil
        }
        // A serial queue each, not `concurrentPerform`: on Linux that runs on Dispatch's global threads, which are
        // Swift's cooperative pool, and a service's requests would wait for the compiling.
        let compiling = DispatchGroup()
        for (model, settings) in pending {
            DispatchQueue(label: "mien.compile").async(group: compiling) {
                _ = try? core.compiledModel(model, store: store, settings: settings)
            }
        }
        compiling.wait()
    }
}

/// Lends `properties` to a C call as an `ov_property_t` array (keys and values live until `body` returns).
func withProperties(
    _ properties: [String: String], _ body: (Int, UnsafePointer<ov_property_t>?) throws -> Void
) throws {
    let pairs = properties.sorted { $0.key < $1.key }
    let strings = pairs.flatMap { [strdup($0.key), strdup($0.value)] }
    defer { for string in strings { free(string) } }
    var list: [ov_property_t] = []
    for index in stride(from: 0, to: strings.count, by: 2) {
        list.append(ov_property_t(key: UnsafePointer(strings[index]), value: UnsafeRawPointer(strings[index + 1])))
    }
    try list.withUnsafeBufferPointer { try body($0.count, $0.baseAddress) }
}
