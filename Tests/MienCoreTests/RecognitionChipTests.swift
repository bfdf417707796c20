import Foundation
import MienCore
import Testing

/// The chip dlib's face recognition network reads: dlib's alignment reproduced from 68 points.
@Suite("Recognition chip")
struct RecognitionChipTests {
    /// The 68 points a face would have if `frameFromChip` had placed dlib's mean face (points 0...16, which
    /// the alignment ignores, at the origin).
    static func points(frameFromChip: MienCore.AffineTransform) -> [Point] {
        (0..<68).map { $0 < 17 ? Point(x: 0, y: 0) : frameFromChip.apply(RecognitionChip.templatePoint($0)) }
    }

    @Test func alignment_usesDlibsThirtyThreePoints() {
        #expect(RecognitionChip.alignedPoints.count == 33)
        #expect(RecognitionChip.alignedPoints.first == 27 && RecognitionChip.alignedPoints.last == 64)
        #expect(!RecognitionChip.alignedPoints.contains(57) && !RecognitionChip.alignedPoints.contains(66))
        // The template sits inside the chip, eyes level, the left eye (image left, 36...41) left of the right.
        let left = RecognitionChip.templatePoint(36)
        let right = RecognitionChip.templatePoint(45)
        #expect(abs(left.y - right.y) < 1e-9 && left.x < right.x && left.x > 0 && right.x < 150)
    }

    @Test(arguments: [(0.0, 1.0, 0.0, 0.0), (20.0, 2.3, 310.0, -45.0), (-75.0, 0.4, 12.5, 900.0)])
    func aKnownSimilarity_isRecovered(degrees: Double, scale: Double, dx: Double, dy: Double) throws {
        let angle = degrees * .pi / 180
        let frameFromChip = MienCore.AffineTransform(
            a: scale * cos(angle), b: -scale * sin(angle), tx: dx, c: scale * sin(angle), d: scale * cos(angle), ty: dy)
        let chipFromFrame = try #require(
            RecognitionChip.chipFromFrame(ibug68: Self.points(frameFromChip: frameFromChip)))
        for index in RecognitionChip.alignedPoints {
            let back = chipFromFrame.apply(frameFromChip.apply(RecognitionChip.templatePoint(index)))
            let expected = RecognitionChip.templatePoint(index)
            #expect(abs(back.x - expected.x) < 1e-6 && abs(back.y - expected.y) < 1e-6, "point \(index)")
        }
        // A rotation and uniform scale, never a reflection.
        #expect(chipFromFrame.a * chipFromFrame.d - chipFromFrame.b * chipFromFrame.c > 0)
        #expect(abs(chipFromFrame.a - chipFromFrame.d) < 1e-9 && abs(chipFromFrame.b + chipFromFrame.c) < 1e-9)
    }

    @Test func noisyPoints_getTheLeastSquaresFit() throws {
        // Points moved off the template by a fixed pattern: the fit is the transform whose residuals cancel
        // (their mean is zero), so it stays close to identity.
        let points = (0..<68).map { index -> Point in
            guard index >= 17 else { return Point(x: 0, y: 0) }
            let p = RecognitionChip.templatePoint(index)
            return Point(x: p.x + (index % 2 == 0 ? 1.5 : -1.5), y: p.y + (index % 3 == 0 ? 1 : -0.5))
        }
        let fit = try #require(RecognitionChip.chipFromFrame(ibug68: points))
        #expect(abs(fit.a - 1) < 0.02 && abs(fit.c) < 0.02 && abs(fit.tx) < 3 && abs(fit.ty) < 3, "\(fit)")
    }

    @Test func tooFewOrDegeneratePoints_giveNoChip() {
        #expect(RecognitionChip.chipFromFrame(ibug68: []) == nil)
        #expect(RecognitionChip.chipFromFrame(ibug68: Array(repeating: Point(x: 3, y: 4), count: 68)) == nil)
    }
}
