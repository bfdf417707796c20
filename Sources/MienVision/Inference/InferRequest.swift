internal import COpenVINO
import MienCore

/// Owns one `ov_infer_request_t`: the input and output buffers of one run of a compiled model at a time.
///
/// - Important: Not thread-safe; one lane (one thread at a time) owns each request.
final class InferRequest {
    let handle: OpaquePointer
    private let model: CompiledModel

    init(model: CompiledModel) throws {
        self.model = model
        var request: OpaquePointer? = nil
        try openVINOCall(model: model.name, "create a request for") {
            ov_compiled_model_create_infer_request(model.handle, &request)
        }
        guard let request else { throw MienError(.internalFailure, "no infer request", input: model.name) }
        handle = request
    }

    deinit { ov_infer_request_free(handle) }

    /// The request's input tensor (its memory lives as long as the request).
    func inputTensor() throws -> InferenceTensor {
        var tensor: OpaquePointer? = nil
        try openVINOCall(model: model.name, "read the input of") {
            ov_infer_request_get_input_tensor_by_index(handle, 0, &tensor)
        }
        return try InferenceTensor(tensor, owner: self, name: model.name)
    }

    /// The output tensor called `name` in the model.
    func outputTensor(named output: String) throws -> InferenceTensor {
        var tensor: OpaquePointer? = nil
        try openVINOCall(model: model.name, "find the output \"\(output)\" of", code: .modelInvalid) {
            ov_infer_request_get_tensor(handle, output, &tensor)
        }
        return try InferenceTensor(tensor, owner: self, name: model.name)
    }

    /// Runs the network on the input tensor's current contents (synchronously, on the calling thread plus
    /// the compiled model's own threads).
    func infer() throws {
        try openVINOCall(model: model.name, "run") { ov_infer_request_infer(handle) }
    }
}
