package import MienCore

/// dlib's face recognition ResNet (Davis King, CC0): a 128-number descriptor from a 150 x 150 chip aligned
/// on the face's 68 iBUG points (`RecognitionChip`), for opt-in re-identification.
///
/// The model carries dlib's input normalisation ((pixel − channel mean) / 256), so the chip goes in as RGB
/// planes of plain pixels.
///
/// - Important: Not reentrant: one call at a time.
package final class FaceRecognitionNetwork: FaceRecognizing {
    private let network: NeuralNetwork
    private static let spec = TensorSpec(
        width: RecognitionChip.side, height: RecognitionChip.side, channels: 3, rgb: true, scale: 1, offset: 0,
        border: 0)

    /// Loads and verifies the model.
    /// - Throws: `.modelMissing`, `.modelAltered` or `.modelInvalid` naming the file.
    package init(models: ModelStore) throws {
        network = try NeuralNetwork(.faceRecognition, store: models)
    }

    package func chip(of frame: Frame, chipFromFrame: AffineTransform) throws -> Frame {
        try frame.warped(by: chipFromFrame, width: RecognitionChip.side, height: RecognitionChip.side)
    }

    package func descriptor(ofChip chip: Frame) throws -> FaceDescriptor {
        guard chip.width == RecognitionChip.side, chip.height == RecognitionChip.side else {
            throw MienError(
                .invalidArgument, "a recognition chip is \(RecognitionChip.side) pixels square",
                input: ModelDescriptor.faceRecognition.fileName)
        }
        let output = try network.run(chip, tensorFromFrame: .identity, spec: Self.spec)
        do {
            return try FaceDescriptor(values: output.first ?? [])
        } catch {
            throw MienError(
                .modelInvalid, "the network gave no finite descriptor", input: ModelDescriptor.faceRecognition.fileName)
        }
    }
}
