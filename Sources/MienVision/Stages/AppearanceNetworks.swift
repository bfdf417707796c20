package import MienCore

/// Cydral's gender classifier and age predictor (dlib-models), run on dlib-style aligned face chips
/// (`FaceChip`): 32 x 32 for gender, 64 x 64 for age, RGB, (pixel − channel mean) / 256.
///
/// - Important: Not reentrant: one call at a time.
package final class AppearanceNetworks: AppearanceClassifying {
    private let genderNetwork: NeuralNetwork
    private let ageNetwork: NeuralNetwork
    /// dlib's training means, R, G, B.
    private static let means: [Float] = [122.781998, 117.000999, 104.297997]
    /// The ages (years) of the age model's 81 outputs.
    package static let ages: [Double] = [0.25] + (1...80).map(Double.init)

    /// Loads and verifies both models.
    /// - Throws: `.modelMissing`, `.modelAltered` or `.modelInvalid` naming the file.
    package init(models: ModelStore) throws {
        genderNetwork = try NeuralNetwork(.gender, store: models)
        ageNetwork = try NeuralNetwork(.age, store: models)
    }

    package func maleProbability(in frame: Frame, points: [Point3D]) throws -> Double {
        let output = try run(genderNetwork, frame: frame, points: points, size: 32)
        guard output.count == 2 else {
            throw MienError(.modelInvalid, "unexpected gender output", input: ModelDescriptor.gender.fileName)
        }
        return Double(output[1])
    }

    package func age(in frame: Frame, points: [Point3D]) throws -> Double {
        let output = try run(ageNetwork, frame: frame, points: points, size: 64)
        guard output.count == Self.ages.count else {
            throw MienError(.modelInvalid, "unexpected age output", input: ModelDescriptor.age.fileName)
        }
        let total = output.reduce(0, +)
        guard total > 0 else { return .nan }
        return zip(output, Self.ages).reduce(0) { $0 + Double($1.0) * $1.1 } / Double(total)
    }

    /// The chip as an NCHW RGB tensor, run through `network`.
    private func run(_ network: NeuralNetwork, frame: Frame, points: [Point3D], size: Int) throws -> [Float] {
        guard let transform = FaceChip.transform(points: points, size: size) else {
            throw MienError(.invalidArgument, "the face chip needs a non-degenerate 468-point mesh")
        }
        let chip = try frame.warped(by: transform, width: size, height: size)
        let plane = size * size
        var tensor = [Float](repeating: 0, count: 3 * plane)
        for i in 0..<plane {
            // Chip pixels are BGR; the model wants RGB planes.
            for channel in 0..<3 {
                let value = Float(chip.pixels[i * 3 + (2 - channel)])
                tensor[channel * plane + i] = (value - Self.means[channel]) / 256
            }
        }
        return try network.run(tensor: tensor, shape: [1, 3, size, size]).first ?? []
    }
}
