internal import CMienBridge
import MienCore

/// How a region of a frame becomes a network's NCHW float input.
struct TensorSpec: Sendable {
    /// Tensor size in pixels.
    var width: Int
    var height: Int
    /// 3 for colour, 1 for grey.
    var channels: Int
    /// Channel order RGB (MediaPipe models) rather than BGR.
    var rgb: Bool
    /// value = pixel (0...255) * scale + offset.
    var scale: Float
    var offset: Float
    /// Grey level (0...255) outside the frame, unless `replicatesEdges`.
    var border: UInt8
    /// Outside the frame repeats the frame's nearest edge pixel instead of `border`: the fill of Keras'
    /// augmentation (`fill_mode="nearest"`), which a CNN trained with it has seen around zoomed-out faces.
    var replicatesEdges = false

    var bridged: mien_tensor_spec {
        mien_tensor_spec(
            width: Int32(width), height: Int32(height), channels: Int32(channels), rgb: rgb ? 1 : 0, scale: scale,
            offset: offset, border: border, replicate: replicatesEdges ? 1 : 0)
    }
}

/// Owns one `mien_net`: an ONNX model parsed by OpenCV's DNN module.
///
/// - Important: Not reentrant. One network has one owner (a stage), which calls it from one task at a
///   time; OpenCV's `cv::dnn::Net` keeps per-call state inside.
final class NeuralNetwork {
    private let handle: OpaquePointer
    /// The model's name, used in errors.
    let name: String
    /// Floats reserved per output; a larger output is an error rather than an overflow.
    private let capacities: [Int]
    private var storage: [Float]
    private var sizes: [Int]

    /// Parses `bytes` (already checksummed) and fixes the outputs to fetch.
    /// - Parameter outputs: output tensor names with the number of floats each holds.
    init(bytes: [UInt8], name: String, outputs: [(name: String, count: Int)]) throws {
        self.name = name
        capacities = outputs.map(\.count)
        storage = [Float](repeating: 0, count: capacities.reduce(0, +))
        sizes = [Int](repeating: 0, count: outputs.count)
        var out: OpaquePointer? = nil
        // strdup'd names live until the call returns; the bridge copies them.
        let cNames = outputs.map { strdupC($0.name) }
        defer { for name in cNames { name.deallocate() } }
        try bytes.withUnsafeBufferPointer { buffer in
            try cNames.map { UnsafePointer($0) as UnsafePointer<CChar>? }.withUnsafeBufferPointer { names in
                try bridgeCall(input: name) {
                    mien_net_create(buffer.baseAddress, buffer.count, names.baseAddress, Int32(names.count), &out, $0)
                }
            }
        }
        guard let out else { throw MienError(.internalFailure, "no network handle", input: name) }
        handle = out
    }

    deinit { mien_net_free(handle) }

    /// Warps `frame` through `tensorFromFrame` into the input tensor, runs the network and returns each
    /// output's values.
    func run(_ frame: Frame, tensorFromFrame: AffineTransform, spec: TensorSpec) throws -> [[Float]] {
        var bridgedSpec = spec.bridged
        let matrix = tensorFromFrame.rowMajor
        try withOutputs { outputs, capacities, sizes in
            try frame.pixels.withUnsafeBufferPointer { pixels in
                try matrix.withUnsafeBufferPointer { m in
                    try bridgeCall(input: name) {
                        mien_net_run_image(
                            handle, pixels.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.stride),
                            m.baseAddress, &bridgedSpec, outputs, capacities, sizes, $0)
                    }
                }
            }
        }
        return splitOutputs()
    }

    /// Runs the network on a float tensor of the given shape.
    func run(tensor: [Float], shape: [Int]) throws -> [[Float]] {
        let dims = shape.map { Int32(clamping: $0) }
        guard shape.reduce(1, *) == tensor.count else {
            throw MienError(
                .invalidArgument, "tensor has \(tensor.count) values, shape \(shape) needs \(shape.reduce(1, *))",
                input: name)
        }
        try withOutputs { outputs, capacities, sizes in
            try tensor.withUnsafeBufferPointer { input in
                try dims.withUnsafeBufferPointer { d in
                    try bridgeCall(input: name) {
                        mien_net_run_tensor(
                            handle, input.baseAddress, d.baseAddress, Int32(d.count), outputs, capacities, sizes, $0)
                    }
                }
            }
        }
        return splitOutputs()
    }

    // MARK: - Output buffers

    /// Lends the bridge one pointer per output into `storage`, plus capacities and a place for sizes.
    private func withOutputs(
        _ body: (UnsafePointer<UnsafeMutablePointer<Float>?>, UnsafePointer<Int>, UnsafeMutablePointer<Int>) throws ->
            Void
    ) throws {
        let caps = capacities
        var written = [Int](repeating: 0, count: caps.count)
        try storage.withUnsafeMutableBufferPointer { floats in
            guard let base = floats.baseAddress else {
                throw MienError(.internalFailure, "no output storage", input: name)
            }
            var pointers: [UnsafeMutablePointer<Float>?] = []
            var offset = 0
            for cap in caps {
                pointers.append(base + offset)
                offset += cap
            }
            try pointers.withUnsafeBufferPointer { outs in
                try caps.withUnsafeBufferPointer { c in
                    try written.withUnsafeMutableBufferPointer { w in
                        guard let o = outs.baseAddress, let cb = c.baseAddress, let wb = w.baseAddress else { return }
                        try body(o, cb, wb)
                    }
                }
            }
        }
        sizes = written
    }

    private func splitOutputs() -> [[Float]] {
        var result: [[Float]] = []
        var offset = 0
        for (cap, size) in zip(capacities, sizes) {
            result.append(Array(storage[offset..<offset + size]))
            offset += cap
        }
        return result
    }
}

/// A NUL-terminated copy of `string`, to be deallocated by the caller.
private func strdupC(_ string: String) -> UnsafeMutablePointer<CChar> {
    let utf8 = Array(string.utf8CString)
    let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
    copy.initialize(from: utf8, count: utf8.count)
    return copy
}
