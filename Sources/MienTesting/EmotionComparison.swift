public import Mien

/// Mien's emotions next to fer's CNN alone on the same labelled pictures: the comparison `make eval`
/// prints and the tests pin.
public struct EmotionComparison: Sendable {
    /// Mien's dominant emotion against the label.
    ///
    /// A picture where Mien finds no face gets fer's own answer (counted in `withoutFace`), so both
    /// sides score the same pictures.
    public let mien: ClassificationScore<Emotion>
    /// fer's CNN as its users run it on a face crop: the whole picture stretched onto its input.
    public let ferAlone: ClassificationScore<Emotion>
    /// Pictures where Mien found no face.
    public let withoutFace: Int

    /// The reader for face-crop pictures: `mien analyze --face-mode small --max-faces 4 --metrics emotions`
    /// (the whole picture as the face when nothing is detected, as by default).
    public static func faceCropReader(models: ModelStore) throws -> PictureReader {
        try PictureReader(groups: [.emotions], features: false, models: models)
    }

    /// Scores the `images` whose label names one of Mien's emotions; the others are skipped.
    /// - Throws: when a picture cannot be decoded or a network fails.
    package init(images: [LabelledExpression], reader: PictureReader, cnn: EmotionNetwork) throws {
        var mien: [(truth: Emotion, predicted: Emotion)] = []
        var alone: [(truth: Emotion, predicted: Emotion)] = []
        var withoutFace = 0
        for image in images {
            guard let truth = image.emotion else { continue }
            let frame = try ImageDecoder.decode(file: image.imagePath)
            let plain = try cnn.probabilities(in: frame, tensorFromFrame: EmotionNetwork.wholePicture(of: frame))
            let plainBest = FacialEmotionCNN.classes[plain.indices.max { plain[$0] < plain[$1] } ?? 0]
            alone.append((truth, plainBest))
            if let dominant = try reader.largestFace(image.imagePath)?.emotions?.maximum?.key {
                mien.append((truth, dominant))
            } else {
                withoutFace += 1
                mien.append((truth, plainBest))
            }
        }
        self.mien = ClassificationScore(mien)
        ferAlone = ClassificationScore(alone)
        self.withoutFace = withoutFace
    }
}
