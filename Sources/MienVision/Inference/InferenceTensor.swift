internal import COpenVINO
import MienCore

/// Owns one `ov_tensor_t` handle onto a request's float input or output buffer.
///
/// The floats belong to the infer request; the tensor keeps its request alive so that `floats` stays valid.
final class InferenceTensor {
    let handle: OpaquePointer
    /// Dimensions, such as [1, 3, 256, 256].
    let shape: [Int]
    /// The tensor's floats, writable for an input, read after `infer()` for an output.
    let floats: UnsafeMutableBufferPointer<Float>
    private let owner: InferRequest

    init(_ tensor: OpaquePointer?, owner: InferRequest, name: String) throws {
        guard let tensor else { throw MienError(.internalFailure, "OpenVINO returned no tensor", input: name) }
        do {
            (shape, floats) = try Self.inspect(tensor, name: name)
        } catch {
            ov_tensor_free(tensor)
            throw error
        }
        handle = tensor
        self.owner = owner
    }

    private static func inspect(_ tensor: OpaquePointer, name: String) throws -> (
        [Int], UnsafeMutableBufferPointer<Float>
    ) {
        var type = DYNAMIC
        try openVINOCall(model: name, "inspect") { ov_tensor_get_element_type(tensor, &type) }
        guard type == F32 else {
            throw MienError(.modelInvalid, "a tensor is not 32-bit float (element type \(type.rawValue))", input: name)
        }
        var shape = ov_shape_t()
        try openVINOCall(model: name, "inspect") { ov_tensor_get_shape(tensor, &shape) }
        let dims = (0..<Int(shape.rank)).map { Int(shape.dims[$0]) }
        ov_shape_free(&shape)
        var count = 0
        var data: UnsafeMutableRawPointer? = nil
        try openVINOCall(model: name, "inspect") { ov_tensor_get_size(tensor, &count) }
        try openVINOCall(model: name, "inspect") { ov_tensor_data(tensor, &data) }
        guard let data else { throw MienError(.internalFailure, "a tensor has no data", input: name) }
        return (dims, UnsafeMutableBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count))
    }

    deinit { ov_tensor_free(handle) }
}
