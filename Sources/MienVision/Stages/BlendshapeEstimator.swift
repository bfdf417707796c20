package import MienCore

/// MediaPipe's blendshape model: 52 expression scores from 146 points of the face mesh.
///
/// The model takes the points in pixel coordinates of the image the mesh was measured in, as
/// MediaPipe's graph feeds it (its own golden test uses an 820 x 1024 portrait); no crop is involved.
///
/// - Important: Not reentrant: one call at a time.
package final class BlendshapeEstimator: BlendshapeEstimating {
    private let network: NeuralNetwork

    /// Loads and verifies the model.
    /// - Throws: `.modelMissing`, `.modelAltered` or `.modelInvalid` naming the file.
    package init(models: ModelStore) throws {
        network = try NeuralNetwork(.blendshapes, store: models)
    }

    /// The blendshapes of a face whose 478 mesh points (pixels; z unused) are `points`.
    package func blendshapes(points: [Point3D]) throws -> Blendshapes {
        guard points.count == FaceLandmark.count else {
            throw MienError(.invalidArgument, "blendshapes need the 478-point mesh, got \(points.count) points")
        }
        var input: [Float] = []
        input.reserveCapacity(Blendshapes.meshSubset.count * 2)
        for index in Blendshapes.meshSubset {
            input.append(Float(points[index].x))
            input.append(Float(points[index].y))
        }
        let outputs = try network.run(tensor: input, shape: [1, Blendshapes.meshSubset.count, 2])
        guard let scores = outputs.first, scores.count == Blendshapes.names.count else {
            throw MienError(.modelInvalid, "unexpected blendshape output", input: network.name)
        }
        return try Blendshapes(scores: scores.map(Double.init))
    }
}
