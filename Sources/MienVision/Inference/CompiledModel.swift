internal import COpenVINO
import MienCore

/// Owns one `ov_compiled_model_t`: a network compiled for the CPU with its `InferenceSettings`.
///
/// Compiling costs 100–350 ms per network (measured on the 2-core machine, hence the compiled-model
/// cache); infer requests made from it cost almost nothing, so several lanes share one compiled model.
/// OpenVINO documents a compiled model as thread-safe (`@unchecked Sendable`); its requests are not.
final class CompiledModel: @unchecked Sendable {
    let handle: OpaquePointer
    /// The model's file name, used in errors.
    let name: String
    /// The shape of the model's only input, such as [1, 3, 256, 256].
    private(set) var inputShape: [Int]

    init(core: InferenceCore, source: SourceModel, name: String, settings: InferenceSettings) throws {
        self.name = name
        var compiled: OpaquePointer? = nil
        try withProperties(settings.properties) { count, list in
            try openVINOCall(model: name, "compile", code: .modelInvalid) {
                ov_core_compile_model_props(core.handle, source.handle, "CPU", count, list, &compiled)
            }
        }
        guard let compiled else { throw MienError(.modelInvalid, "OpenVINO returned no compiled model", input: name) }
        handle = compiled
        var inputs = 0
        let status = ov_compiled_model_inputs_size(compiled, &inputs)
        guard status == OK, inputs == 1 else {
            inputShape = []
            throw MienError(.modelInvalid, "the model has \(inputs) inputs, Mien's networks take one", input: name)
        }
        inputShape = []
        // The input's shape, read from a request's input tensor (static for every model Mien ships).
        let probe = try InferRequest(model: self)
        inputShape = try probe.inputTensor().shape
    }

    deinit { ov_compiled_model_free(handle) }
}
