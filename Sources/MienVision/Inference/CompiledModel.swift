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
    let inputShape: [Int]

    init(core: InferenceCore, source: SourceModel, name: String, settings: InferenceSettings) throws {
        self.name = name
        var compiled: OpaquePointer? = nil
        try withProperties(settings.properties) { count, list in
            try openVINOCall(model: name, "compile", code: .modelInvalid) {
                ov_core_compile_model_props(core.handle, source.handle, "CPU", count, list, &compiled)
            }
        }
        guard let compiled else { throw MienError(.modelInvalid, "OpenVINO returned no compiled model", input: name) }
        do {
            inputShape = try Self.inputShape(of: compiled, name: name)
        } catch {
            ov_compiled_model_free(compiled)
            throw error
        }
        handle = compiled
    }

    /// The shape of the compiled model's only input (static: `SourceModel` fixed any dynamic batch).
    private static func inputShape(of compiled: OpaquePointer, name: String) throws -> [Int] {
        var inputs = 0
        try openVINOCall(model: name, "inspect") { ov_compiled_model_inputs_size(compiled, &inputs) }
        guard inputs == 1 else {
            throw MienError(.modelInvalid, "the model has \(inputs) inputs, Mien's networks take one", input: name)
        }
        var port: OpaquePointer? = nil
        try openVINOCall(model: name, "inspect") { ov_compiled_model_input(compiled, &port) }
        defer { ov_output_const_port_free(port) }
        var shape = ov_shape_t()
        try openVINOCall(model: name, "read the input shape of", code: .modelInvalid) {
            ov_const_port_get_shape(port, &shape)
        }
        defer { ov_shape_free(&shape) }
        return (0..<Int(shape.rank)).map { Int(shape.dims[$0]) }
    }

    deinit { ov_compiled_model_free(handle) }
}
