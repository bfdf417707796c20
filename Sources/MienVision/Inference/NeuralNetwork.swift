internal import CMienBridge
import MienCore

/// How a region of a frame becomes a network's float input.
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
    /// Height, width, channel order (TensorFlow Lite's NHWC) rather than channel planes (ONNX's NCHW).
    var interleaved = false

    var bridged: mien_tensor_spec {
        mien_tensor_spec(
            width: Int32(width), height: Int32(height), channels: Int32(channels), rgb: rgb ? 1 : 0, scale: scale,
            offset: offset, border: border, replicate: replicatesEdges ? 1 : 0, interleaved: interleaved ? 1 : 0)
    }
}

/// The one seam every network of Mien runs through: a compiled OpenVINO model, one infer request (a
/// "lane") and its input and output tensors.
///
/// Preparing the input (warp, colour, scale, layout) is a separate step on OpenCV
/// (`mien_tensor_from_image`), which writes straight into the request's input tensor; OpenVINO then runs
/// the network and the outputs are copied out, so a result never aliases the next call's buffers.
///
/// - Important: Not reentrant. One network has one owner (a stage), which calls it from one task at a
///   time; `lane()` gives another thread its own request on the same compiled model.
final class NeuralNetwork {
    /// The model's file name, used in errors.
    let name: String
    private let compiled: CompiledModel
    private let request: InferRequest
    private let input: InferenceTensor
    private let outputs: [InferenceTensor]
    private let outputNames: [(name: String, count: Int)]

    /// Loads `model` from `store` (checking its SHA-256), compiles it unless this process already has, and
    /// opens a request on it for the outputs the descriptor names.
    /// - Parameter settings: threads and streams (default: the model's own `inferenceSettings`).
    /// - Throws: `.modelMissing` or `.modelAltered` from the store; `.modelInvalid` naming the model when
    ///   OpenVINO cannot read or compile it, or when an output is missing or has another size.
    convenience init(_ model: ModelDescriptor, store: ModelStore, settings: InferenceSettings? = nil) throws {
        let compiled = try InferenceCore.shared().compiledModel(
            model, store: store, settings: settings ?? model.inferenceSettings)
        try self.init(compiled: compiled, outputs: Array(zip(model.outputNames, model.outputCounts)))
    }

    private init(compiled: CompiledModel, outputs expected: [(name: String, count: Int)]) throws {
        name = compiled.name
        self.compiled = compiled
        let request = try InferRequest(model: compiled)
        self.request = request
        input = try request.inputTensor()
        outputs = try expected.map { output in
            let tensor = try request.outputTensor(named: output.name)
            guard tensor.floats.count == output.count else {
                throw MienError(
                    .modelInvalid,
                    "output \(output.name) has \(tensor.floats.count) values, Mien expects \(output.count)",
                    input: compiled.name)
            }
            return tensor
        }
        outputNames = expected
    }

    /// Another lane: a request of its own on the same compiled model, for another thread (no recompiling).
    func lane() throws -> NeuralNetwork {
        try NeuralNetwork(compiled: compiled, outputs: outputNames)
    }

    /// Warps `frame` through `tensorFromFrame` into the input tensor, runs the network and returns each
    /// output's values.
    func run(_ frame: Frame, tensorFromFrame: AffineTransform, spec: TensorSpec) throws -> [[Float]] {
        let expected =
            spec.interleaved
            ? [1, spec.height, spec.width, spec.channels] : [1, spec.channels, spec.height, spec.width]
        guard compiled.inputShape == expected else {
            throw MienError(
                .invalidArgument, "input shape \(compiled.inputShape), the tensor spec makes \(expected)", input: name)
        }
        var bridgedSpec = spec.bridged
        let matrix = tensorFromFrame.rowMajor
        let tensor = input.floats
        try frame.pixels.withUnsafeBufferPointer { pixels in
            try matrix.withUnsafeBufferPointer { m in
                try bridgeCall(input: name) {
                    mien_tensor_from_image(
                        pixels.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.stride), m.baseAddress,
                        &bridgedSpec, tensor.baseAddress, tensor.count, $0)
                }
            }
        }
        return try infer()
    }

    /// Runs the network on a float tensor of the given shape (the model's own input shape).
    func run(tensor: [Float], shape: [Int]) throws -> [[Float]] {
        guard shape == compiled.inputShape, tensor.count == input.floats.count else {
            throw MienError(
                .invalidArgument,
                "tensor of shape \(shape) (\(tensor.count) values), the model takes \(compiled.inputShape)", input: name
            )
        }
        _ = input.floats.update(fromContentsOf: tensor)
        return try infer()
    }

    private func infer() throws -> [[Float]] {
        try request.infer()
        return outputs.map { Array($0.floats) }
    }
}
