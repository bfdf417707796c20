import Foundation
import Mien
import MienTesting
import Testing

/// `lipTighten` (AU23): on with its group, absent otherwise; low on a smile; higher on posed anger than on happy
/// and neutral faces.
@Suite("AU23 lip tightener", .timeLimit(.minutes(10)))
struct LipTightenerTests {
    @Test func theSmilingSample_hasNoTightenedLips_andTheMetricFollowsItsGroup() throws {
        let models = try repositoryModels()
        let on = try PictureReader(groups: [.expressions], features: false, models: models)
        let face = try #require(try on.largestFace(SampleMedia.astronautPath))
        let score = try #require(face.measures["lipTighten"])
        #expect(score >= 0 && score < 10, "a broad smile stretches the lips thin, and is not AU23: \(score)")
        let off = try PictureReader(groups: [.emotions], features: false, models: models)
        #expect(try #require(try off.largestFace(SampleMedia.astronautPath)).measures["lipTighten"] == nil)
    }

    /// JAFFE's posed anger (FACS prototype 4+5+7+23) against its happy and neutral faces.
    @Test(.needsEvaluationData) func posedAnger_scoresAboveHappyAndNeutralFaces() throws {
        let reader = try PictureReader(groups: [.expressions], features: false, models: try repositoryModels())
        var anger: [Double] = []
        var resting: [Double] = []
        for image in try LabelledExpression.jaffe(try evaluationRoot())
        where ["anger", "happiness", "neutral"].contains(image.label) {
            guard let score = try reader.largestFace(image.imagePath)?.measures["lipTighten"] else { continue }
            if image.label == "anger" { anger.append(score) } else { resting.append(score) }
        }
        #expect(anger.count >= 4 && resting.count >= 8)
        let auc = ROC.auc(positives: anger, negatives: resting)
        #expect(auc >= 0.6, "anger \(anger), happy and neutral \(resting)")
    }
}
