internal import COpenVINO
import Foundation
import MienCore

/// Owns one `ov_model_t`: a network read by one of OpenVINO's front ends, before compilation.
///
/// ONNX is read from the checksummed bytes, so that what runs is exactly what was verified. OpenVINO's
/// TensorFlow Lite front end reads only files, so a `.tflite` model is read from its path right after its
/// bytes were verified (a file swapped in between would have to be swapped by someone who can already
/// write the models folder). Both formats carry their weights inside: no weights tensor is passed.
final class SourceModel {
    let handle: OpaquePointer

    init(core: InferenceCore, bytes: Data, file: URL) throws {
        let name = file.lastPathComponent
        guard !bytes.isEmpty else { throw MienError(.modelInvalid, "the model file is empty", input: name) }
        var model: OpaquePointer? = nil
        if file.pathExtension == "tflite" {
            try openVINOCall(model: name, "read", code: .modelInvalid) {
                ov_core_read_model(core.handle, file.path, nil, &model)
            }
        } else {
            try bytes.withUnsafeBytes { buffer in
                let chars = buffer.bindMemory(to: CChar.self)
                try openVINOCall(model: name, "read", code: .modelInvalid) {
                    ov_core_read_model_from_memory_buffer(core.handle, chars.baseAddress, chars.count, nil, &model)
                }
            }
        }
        guard let model else { throw MienError(.modelInvalid, "OpenVINO returned no model", input: name) }
        handle = model
        try fixBatch(name: name)
    }

    deinit { ov_model_free(handle) }

    /// Gives a model whose input batch is dynamic (Cydral's age and gender models take [?, 3, h, w]) a batch
    /// of 1: Mien runs one face per request, and a static shape lets the CPU plugin plan its buffers once.
    private func fixBatch(name: String) throws {
        var port: OpaquePointer? = nil
        try openVINOCall(model: name, "read the input of", code: .modelInvalid) { ov_model_const_input(handle, &port) }
        defer { ov_output_const_port_free(port) }
        var shape = ov_partial_shape_t()
        try openVINOCall(model: name, "read the input shape of", code: .modelInvalid) {
            ov_port_get_partial_shape(port, &shape)
        }
        defer { ov_partial_shape_free(&shape) }
        guard shape.rank.min == shape.rank.max, shape.rank.min > 0, let dims = shape.dims else {
            throw MienError(.modelInvalid, "the model's input has no fixed rank", input: name)
        }
        let dimensions = (0..<Int(shape.rank.min)).map { dims[$0] }
        guard dimensions.first.map({ $0.min != $0.max }) == true else { return }
        guard dimensions.dropFirst().allSatisfy({ $0.min == $0.max && $0.min > 0 }) else {
            throw MienError(.modelInvalid, "the model's input is dynamic beyond its batch", input: name)
        }
        var fixed = ov_partial_shape_t()
        let sizes = [Int64(1)] + dimensions.dropFirst().map(\.min)
        try openVINOCall(model: name, "reshape", code: .modelInvalid) {
            ov_partial_shape_create_static(Int64(sizes.count), sizes, &fixed)
        }
        defer { ov_partial_shape_free(&fixed) }
        try openVINOCall(model: name, "reshape", code: .modelInvalid) { ov_model_reshape_single_input(handle, fixed) }
    }
}
