import Foundation
import Mien
import MienTesting
import Testing

/// dlib's recognition chip cut from the sample's mesh: the eyes and the mouth land where dlib's mean face
/// has them.
@Suite("Recognition chip on a real face")
struct RecognitionChipRealFaceTests {
    @Test func astronaut_eyesAndMouthLandOnDlibsTemplate() throws {
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let face = try #require(
            try FaceAnalyzer(mode: .image, models: repositoryModels()).analyze(frame).faces.first)
        let points = Ibug68Points.points(of: face.mesh)
        let chip = try #require(RecognitionChip.chipFromFrame(ibug68: points))
        func centre(_ range: ClosedRange<Int>) -> (Point, Point) {
            let found = range.map { chip.apply(points[$0]) }
            let template = range.map(RecognitionChip.templatePoint)
            func mean(_ p: [Point]) -> Point {
                Point(x: p.map(\.x).reduce(0, +) / Double(p.count), y: p.map(\.y).reduce(0, +) / Double(p.count))
            }
            return (mean(found), mean(template))
        }
        // Within 4 px of 150: the mesh's eyes and mouth corners are where dlib's landmarks would put them.
        for (name, range) in [("left eye", 36...41), ("right eye", 42...47), ("upper mouth", 48...54)] {
            let (found, template) = centre(range)
            let distance =
                ((found.x - template.x) * (found.x - template.x) + (found.y - template.y) * (found.y - template.y))
                .squareRoot()
            #expect(distance < 4, "\(name): \(found) against \(template)")
        }
        // The chip is a crop of the face at dlib's scale: the eyes about as far apart as in dlib's template
        // (52.9 px of 150; the mesh's eye corners sit a little wider than dlib's, 56.5 px here).
        func distance(_ p: Point, _ q: Point) -> Double {
            ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot()
        }
        let found = distance(centre(36...41).0, centre(42...47).0)
        let template = distance(centre(36...41).1, centre(42...47).1)
        #expect(
            abs(found - template) < 0.1 * template && template > 50 && template < 56, "\(found) against \(template)")
    }
}
