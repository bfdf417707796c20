/// AU23, lip tightener, 0...100: the lips narrowed and pressed thin (FACS; part of anger's prototype,
/// 4+5+7+23), measured from the pose-normalised mesh and MediaPipe's blendshapes.
///
/// Two signs, averaged: the lips pressed together (the mean of `mouthPressLeft` and `mouthPressRight`, from 0.02
/// to 0.6 as `lipPress` reads them) and the red of the lips thinned for the mouth's width (`lipThickness /
/// mouthWidth` of the frontal face, from 0.30, the median of neutral faces on muxspace, fer2013 and JAFFE
/// (0.31-0.37), down to 0.15). Both also rise in a smile, which stretches the lips thin and presses closed-mouth
/// smiles together, so the score is scaled by how far the face is from smiling (the mean `mouthSmile` from 0.05
/// to 0.6). Scored against population norms in every mode: no per-person baseline, as for pictures.
///
/// `make eval` measures it against labels: the ROC-AUC of anger against happy and neutral faces, beside
/// MediaPipe's nearest blendshape (`mouthPress`). The anchors were read from those sets' medians, so the figure
/// is not held out; in-the-wild "anger" (muxspace, fer2013) is mostly open-mouthed shouting, where the lips are
/// not tightened, and the posed set (JAFFE) is 5 angry faces.
package enum LipTightener {
    /// The catalog's entry: the expressions group's, measured from the located face.
    static let entry = MetricDescriptor.measured(
        "lipTighten", group: .expressions, stage: .expressions, actionUnit: "AU23",
        doc: "AU23 lip tightener: the lips narrowed and pressed thin (not in a smile), from the mesh and blendshapes.",
        measure: score(of:))

    /// Lips pressed together: `mouthPress` (0...1).
    static let press = (neutral: 0.02, full: 0.6)
    /// Red of the lips over the mouth's width, frontal face.
    static let thinning = (neutral: 0.30, full: 0.15)
    /// A smile: `mouthSmile` (0...1).
    static let smile = (neutral: 0.05, full: 0.6)

    /// The face's score, nil when its blendshapes or pose-normalised geometry are missing.
    static func score(of face: MeasuredFace) -> Double? {
        guard let features = face.features, features.mouthWidth > 0,
            let pressLeft = face.blendshape("mouthPressLeft"), let pressRight = face.blendshape("mouthPressRight"),
            let smileLeft = face.blendshape("mouthSmileLeft"), let smileRight = face.blendshape("mouthSmileRight")
        else { return nil }
        let pressed = ramp((pressLeft + pressRight) / 2, press)
        let thin = ramp(features.lipThickness / features.mouthWidth, thinning)
        let smiling = ramp((smileLeft + smileRight) / 2, smile)
        return (100 * (pressed + thin) / 2 * (1 - smiling)).rounded(toPlaces: 2)
    }

    /// 0 at `neutral`, 1 at `full` (either direction), linear between, clamped.
    private static func ramp(_ value: Double, _ curve: (neutral: Double, full: Double)) -> Double {
        min(max((value - curve.neutral) / (curve.full - curve.neutral), 0), 1)
    }
}
