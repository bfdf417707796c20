import MienCore
import Testing

@Suite("Weighted non-max suppression")
struct SuppressionTests {
    private func face(_ x: Double, _ y: Double, _ size: Double, _ score: Double) -> FaceDetection {
        FaceDetection(
            bounds: Rect(x: x, y: y, width: size, height: size),
            keypoints: Array(repeating: Point(x: x, y: y), count: 6), confidence: score)
    }

    @Test func overlappingDetections_areAveragedByScore_andKeepTheBestScore() {
        let merged = WeightedNonMaxSuppression(threshold: 0.3).apply([face(0, 0, 100, 0.6), face(10, 0, 100, 0.9)])
        #expect(merged.count == 1)
        #expect(merged[0].confidence == 0.9)
        // x = (0 * 0.6 + 10 * 0.9) / 1.5 = 6
        #expect(abs(merged[0].bounds.x - 6) < 1e-9)
        #expect(abs(merged[0].keypoints[0].x - 6) < 1e-9)
    }

    @Test func separateFaces_areKept_mostConfidentFirst_upToTheLimit() {
        let faces = [face(0, 0, 50, 0.7), face(200, 0, 50, 0.95), face(400, 0, 50, 0.8)]
        let kept = WeightedNonMaxSuppression(threshold: 0.3).apply(faces)
        #expect(kept.map(\.confidence) == [0.95, 0.8, 0.7])
        #expect(WeightedNonMaxSuppression(threshold: 0.3).apply(faces, limit: 2).map(\.confidence) == [0.95, 0.8])
    }

    @Test func emptyInput_givesNoFaces() {
        #expect(WeightedNonMaxSuppression(threshold: 0.3).apply([]).isEmpty)
    }
}
