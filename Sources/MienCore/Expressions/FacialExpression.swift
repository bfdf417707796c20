/// Affdex's facial expressions: the 15 of the SDK's first releases and the 6 that Affdex 3.x added.
///
/// Every score is 0...100 (0 = absent, 100 = fully present). The FACS action unit (AU) each one
/// stands for is in `actionUnit`; how each is measured is documented on `ExpressionMapper`.
public enum FacialExpression: String, ScoreKey {
    case attention, browFurrow, browRaise, innerBrowRaise, eyeClosure, noseWrinkle, upperLipRaise, lipSuck
    case lipPucker, lipPress, mouthOpen, lipCornerDepressor, chinRaise, smirk, smile
    case cheekRaise, dimpler, eyeWiden, jawDrop, lidTighten, lipStretch

    /// The FACS action unit(s) the expression corresponds to, as Affdex documents them.
    public var actionUnit: String {
        switch self {
        case .attention: "head orientation and gaze (no AU)"
        case .browFurrow: "AU4 brow lowerer"
        case .browRaise: "AU2 outer brow raiser"
        case .innerBrowRaise: "AU1 inner brow raiser"
        case .eyeClosure: "AU43 eyes closed"
        case .noseWrinkle: "AU9 nose wrinkler"
        case .upperLipRaise: "AU10 upper lip raiser"
        case .lipSuck: "AU28 lip suck"
        case .lipPucker: "AU18 lip pucker"
        case .lipPress: "AU24 lip presser"
        case .mouthOpen: "AU25 lips part"
        case .lipCornerDepressor: "AU15 lip corner depressor"
        case .chinRaise: "AU17 chin raiser"
        case .smirk: "unilateral AU12 (one lip corner pulled up)"
        case .smile: "AU12 lip corner puller"
        case .cheekRaise: "AU6 cheek raiser"
        case .dimpler: "AU14 dimpler"
        case .eyeWiden: "AU5 upper lid raiser"
        case .jawDrop: "AU26 jaw drop"
        case .lidTighten: "AU7 lid tightener"
        case .lipStretch: "AU20 lip stretcher"
        }
    }

    /// The expressions measured on each side of the face as well as for the whole face.
    public static let bilateral: [FacialExpression] = [
        .browFurrow, .browRaise, .eyeClosure, .eyeWiden, .lidTighten, .cheekRaise, .noseWrinkle, .upperLipRaise,
        .smile, .dimpler, .lipCornerDepressor, .lipStretch,
    ]
}
