import RealModule

/// Fuses fer's emotion CNN with Affdex-style EMFACS rules on the expressions.
///
/// Two kinds of evidence: the CNN reads the face's appearance (FER-2013-trained, 7 classes, no contempt)
/// and is strong on clear, frontal, well-lit faces; the rules read the measured facial actions, which
/// carry the per-person baseline and the left/right asymmetry the CNN cannot see. Each rule's activation
/// `r` (0...1) is the mean of its expressions / 100:
///
/// - joy ← smile, cheekRaise
/// - anger ← browFurrow, lidTighten, lipPress
/// - disgust ← noseWrinkle, upperLipRaise
/// - fear ← innerBrowRaise, browRaise, browFurrow, eyeWiden, lipStretch
/// - sadness ← innerBrowRaise, browFurrow, lipCornerDepressor
/// - surprise ← innerBrowRaise, browRaise, eyeWiden, jawDrop
///
/// The fused probability is `p(e) ∝ p_cnn(e) · exp(ruleWeight · r(e))` over the CNN's 7 classes (neutral
/// has no rule), × 100. Contempt, which the CNN does not know, is `100 · smirk/100 · (1 − p(joy))`: a
/// one-sided lip-corner raise that is not part of a smile. Valence is `100 · (p(joy) − max(negative))`
/// with the negative emotions anger, contempt, disgust, fear and sadness; engagement is the mean of the
/// three strongest facial expressions (attention excluded). Without a CNN (no model, or the CNN turned
/// off) the rules alone are normalised with a neutral activation of `1 − max(r)`.
package struct EmotionFusion: Sendable {
    /// How strongly the rules move the CNN's log-probabilities.
    ///
    /// 1: the rules shift a class by up to a
    /// factor e. Measured on the dev data (`MienDev emotion-features`): 0 (CNN alone) 64.8 % on
    /// fer2013, 47.2 % on muxspace; 1 gives 64.7 % / 47.8 %; larger weights lose on fer2013.
    package static let ruleWeight = 1.0

    static let rules: [Emotion: [FacialExpression]] = [
        .joy: [.smile, .cheekRaise],
        .anger: [.browFurrow, .lidTighten, .lipPress],
        .disgust: [.noseWrinkle, .upperLipRaise],
        .fear: [.innerBrowRaise, .browRaise, .browFurrow, .eyeWiden, .lipStretch],
        .sadness: [.innerBrowRaise, .browFurrow, .lipCornerDepressor],
        .surprise: [.innerBrowRaise, .browRaise, .eyeWiden, .jawDrop],
    ]

    package init() {}

    /// The rule activation (0...1) of `emotion` on `expressions`; 0 for neutral and contempt.
    package func rule(_ emotion: Emotion, _ expressions: Expressions) -> Double {
        guard let parts = Self.rules[emotion] else { return 0 }
        return parts.map { (expressions[$0] ?? 0) / 100 }.reduce(0, +) / Double(parts.count)
    }

    /// The emotions of a face with CNN probabilities `cnn` (in `FacialEmotionCNN.classes` order, or nil)
    /// and `expressions`.
    package func emotions(cnn: [Double]?, expressions: Expressions) -> Emotions {
        let classes = FacialEmotionCNN.classes
        var weights: [Double]
        if let cnn, cnn.count == classes.count {
            weights = zip(classes, cnn).map { emotion, p in
                max(p, 1e-6) * Double.exp(Self.ruleWeight * rule(emotion, expressions))
            }
        } else {
            let activations = classes.map { rule($0, expressions) }
            let strongest = activations.max() ?? 0
            weights = zip(classes, activations).map { $0 == .neutral ? 1 - strongest : $1 }
        }
        let total = weights.reduce(0, +)
        if total > 0 { weights = weights.map { $0 / total } }
        var scores = Scores<Emotion>()
        for (emotion, weight) in zip(classes, weights) { scores[emotion] = (100 * weight).rounded(toPlaces: 2) }
        let joy = (scores[.joy] ?? 0) / 100
        scores[.contempt] = (100 * (expressions[.smirk] ?? 0) / 100 * (1 - joy)).rounded(toPlaces: 2)
        let negative = Emotion.negative.map { scores[$0] ?? 0 }.max() ?? 0
        let valence = max(-100, min(100, 100 * joy - negative))
        let movements = FacialExpression.allCases.filter { $0 != .attention }.map { expressions[$0] ?? 0 }
        let engagement = movements.sorted(by: >).prefix(3).reduce(0, +) / 3
        return Emotions(
            scores: scores, valence: valence.rounded(toPlaces: 2), engagement: engagement.rounded(toPlaces: 2))
    }
}
