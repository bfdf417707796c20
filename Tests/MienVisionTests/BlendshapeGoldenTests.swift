import Foundation
import Mien
import MienTesting
import Testing

@Suite("Blendshapes")
struct BlendshapeGoldenTests {
    private static let fixtures = SampleMedia.repositoryRoot.appendingPathComponent("Tests/Fixtures/mediapipe-golden")

    /// The values of `key: number` fields of a text protobuf, in order.
    private func numbers(_ key: String, in file: String) throws -> [Double] {
        let text = try String(contentsOf: Self.fixtures.appendingPathComponent(file), encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\(key): ") else { return nil }
            return Double(trimmed.dropFirst(key.count + 2))
        }
    }

    @Test func mediaPipesGoldenVector_isReproducedWithin1e3() throws {
        // 478 normalised landmarks of MediaPipe's 820 x 1024 test portrait, fed in pixels.
        let xs = try numbers("x", in: "face_blendshapes_in_landmarks.prototxt")
        let ys = try numbers("y", in: "face_blendshapes_in_landmarks.prototxt")
        #expect(xs.count == 478 && ys.count == 478)
        let points = zip(xs, ys).map { Point3D(x: $0 * 820, y: $1 * 1024, z: 0) }
        let expected = try numbers("score", in: "face_blendshapes_out.prototxt")
        let labels = try String(
            contentsOf: Self.fixtures.appendingPathComponent("face_blendshapes_out.prototxt"), encoding: .utf8
        ).split(whereSeparator: \.isNewline).compactMap { line -> String? in
            guard let start = line.range(of: "label: \"") else { return nil }
            return String(line[start.upperBound...].dropLast())
        }
        #expect(labels == Blendshapes.names)
        let result = try BlendshapeEstimator(models: repositoryModels()).blendshapes(points: points)
        #expect(expected.count == 52)
        let worst = zip(result.scores, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-3, "largest difference \(worst)")
    }

    @Test func smilingSample_scoresSmileHigh_andBlinkLow() throws {
        let analyzer = try FaceAnalyzer(mode: .image, models: repositoryModels())
        let face = try #require(try analyzer.analyze(ImageDecoder.decode(file: SampleMedia.astronautPath)).faces.first)
        let shapes = try BlendshapeEstimator(models: repositoryModels()).blendshapes(points: face.mesh.points)
        #expect((shapes["mouthSmileLeft"] ?? 0) > 0.5 && (shapes["mouthSmileRight"] ?? 0) > 0.5)
        #expect((shapes["eyeBlinkLeft"] ?? 1) < 0.3 && (shapes["eyeBlinkRight"] ?? 1) < 0.3)
        #expect(shapes["noSuchShape"] == nil)
    }

    @Test func wrongPointCount_isRefused() throws {
        let estimator = try BlendshapeEstimator(models: repositoryModels())
        #expect(mienError { _ = try estimator.blendshapes(points: []) }?.code == .invalidArgument)
    }
}
