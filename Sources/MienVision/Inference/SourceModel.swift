internal import COpenVINO
import MienCore

/// Owns one `ov_model_t`: a network read from memory by one of OpenVINO's front ends, before compilation.
///
/// Read from the checksummed bytes rather than from the file, so that what runs is exactly what was
/// verified. ONNX and TensorFlow Lite carry their weights inside, so no weights tensor is passed.
final class SourceModel {
    let handle: OpaquePointer

    init(core: InferenceCore, bytes: [UInt8], name: String) throws {
        guard !bytes.isEmpty else { throw MienError(.modelInvalid, "the model file is empty", input: name) }
        var model: OpaquePointer? = nil
        try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { chars in
                try openVINOCall(model: name, "read", code: .modelInvalid) {
                    ov_core_read_model_from_memory_buffer(core.handle, chars.baseAddress, chars.count, nil, &model)
                }
            }
        }
        guard let model else { throw MienError(.modelInvalid, "OpenVINO returned no model", input: name) }
        handle = model
    }

    deinit { ov_model_free(handle) }
}
