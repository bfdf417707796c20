import RealModule

/// Turns a face's blendshapes, geometry and head pose into Affdex's 21 expressions, 0...100, using
/// population norms (the per-person baseline is applied afterwards, by `NeutralBaseline`).
///
/// Each expression is built from up to two activations, each 0...1 through a `ResponseCurve`:
/// MediaPipe's blendshape for the action unit, and a geometric measure of the same movement on the
/// frontal face (`FaceFeatures`). Where both exist the score is their mean: the blendshapes are
/// precise on clear expressions but sit near 0 on subtle ones and drift between populations; the
/// geometry responds to small movements but also to face shape. Where the blendshape is all but dead
/// (MediaPipe's `noseSneer*` stays within millionths of 0, and its order there does not follow the
/// movement) only geometry is used; `cheekSquint*` lives in the millionths too, but its order does follow
/// the cheeks, so it is read on a log scale; where no geometric measure
/// separates the movement only the blendshape is; and smile is its blendshape alone, because the lip corners'
/// lift and the mouth's widening ranked smiles worse than `mouthSmile` under person-wise cross-validation
/// (`make eval`, issue 24). The table (blendshape; geometry):
///
/// | expression | blendshape evidence | geometric evidence |
/// |---|---|---|
/// | smile (AU12) | mouthSmile, from its own zero | — (corner lift and mouth width tried, dropped) |
/// | browRaise (AU2) | browOuterUp, from its own zero | — (brow height above the eye ranked worse, dropped) |
/// | innerBrowRaise (AU1) | browInnerUp, as it is | — (inner brow end above the eye ranked worse, dropped) |
/// | browFurrow (AU4) | browDown, from its own zero | inner brow end lowered toward the eye |
/// | eyeClosure (AU43) | eyeBlink | eye aspect ratio closing |
/// | eyeWiden (AU5) | eyeWide, from its own zero | — (eye aspect ratio opening ranked worse, dropped) |
/// | lidTighten (AU7) | eyeSquint | lower lid raised toward the corner line; discounted by the smile |
/// | cheekRaise (AU6) | cheekSquint's log10 (it lives in the millionths) | upper cheek raised toward the eye |
/// | noseWrinkle (AU9) | (noseSneer is dead) | nose wing raised toward the inner eye corner, discounted by the smile |
/// | upperLipRaise (AU10) | mouthUpperUp | nose-to-upper-lip distance shrinking; discounted by the smile |
/// | lipSuck (AU28) | mouthRollUpper + mouthRollLower | visible lip height shrinking |
/// | lipPucker (AU18) | mouthPucker | mouth narrowing |
/// | lipPress (AU24) | mouthPress | — |
/// | mouthOpen (AU25) | jawOpen | gap between the inner lips |
/// | lipCornerDepressor (AU15) | mouthFrown | lip corner below the mouth's centre |
/// | chinRaise (AU17) | mouthShrugLower | — |
/// | dimpler (AU14) | mouthDimple | — |
/// | jawDrop (AU26) | jawOpen, from its own zero | — (nose-to-chin distance ranked worse, dropped) |
/// | lipStretch (AU20) | mouthStretch; discounted by the smile | — |
/// | smirk | difference between the two sides' smile | |
/// | attention | head yaw/pitch plus iris gaze | |
///
/// The whole-face score of a bilateral expression is the mean of its sides, except `eyeClosure`, which
/// is the more closed eye (a wink closes an eye). Each curve's neutral point is the median over the 325
/// neutral-labelled faces of the dev data (yalefaces, JAFFE, muxspace; `MienDev features` prints the raw
/// values), so half of all relaxed faces score 0; the full point is the value of clearly posed
/// expressions there. A floor any higher would tie every subtle expression at 0.
package struct ExpressionMapper: Sendable {
    package init() {}

    /// The expressions of a face with these blendshapes, features and pose.
    /// - Parameter gaze: where the person looks, for `attention` (head pose alone without it).
    package func expressions(blendshapes b: Blendshapes, features f: FaceFeatures, pose: HeadPose, gaze: Gaze? = nil)
        -> Expressions
    {
        var left = Scores<FacialExpression>()
        var right = Scores<FacialExpression>()
        for (side, suffix, scores) in [(Side.left, "Left", \Sides.left), (Side.right, "Right", \Sides.right)] {
            let pick = { (sides: FaceFeatures.Sides) in sides[keyPath: scores] }
            var s = Scores<FacialExpression>()
            s[.smile] = C.smile(b.value("mouthSmile" + suffix))
            let smile = C.smile(b.value("mouthSmile" + suffix))
            // What a smile does besides AU12 (cheeks up, eyes narrowed, upper lip lifted, mouth widened)
            // looks like AU7, AU9, AU10 and AU20 to the blendshapes and the geometry alike; without a smile
            // those movements are what they look like (issue 39: on smiling faces they read as high as on
            // disgusted or fearful ones).
            let withoutSmile = 1 - smile
            s[.smile] = smile
            s[.browRaise] = C.browOuterUp(b.value("browOuterUp" + suffix))
            s[.browFurrow] = mean(C.browDown(b.value("browDown" + suffix)), C.innerBrowLowered(pick(f.innerBrowHeight)))
            s[.eyeClosure] = mean(C.eyeBlink(b.value("eyeBlink" + suffix)), C.eyeClosing(pick(f.eyeOpening)))
            s[.eyeWiden] = C.eyeWide(b.value("eyeWide" + suffix))
            s[.lidTighten] =
                mean(C.eyeSquint(b.value("eyeSquint" + suffix)), C.lowerLid(pick(f.lowerLidHeight))) * withoutSmile
            s[.cheekRaise] = mean(
                C.cheek(pick(f.cheekHeight)), C.cheekSquint(Self.log10(b.value("cheekSquint" + suffix))))
            s[.noseWrinkle] = C.noseWing(pick(f.noseWingHeight)) * withoutSmile
            s[.upperLipRaise] =
                mean(C.mouthUpperUp(b.value("mouthUpperUp" + suffix)), C.noseToLip(f.noseToLip)) * withoutSmile
            s[.dimpler] = C.mouthDimple(b.value("mouthDimple" + suffix))
            s[.lipCornerDepressor] = mean(
                C.mouthFrown(b.value("mouthFrown" + suffix)), C.cornerDrop(pick(f.cornerLift)))
            s[.lipStretch] = C.mouthStretch(b.value("mouthStretch" + suffix)) * withoutSmile
            for (key, value) in s.present { s[key] = (100 * value).rounded(toPlaces: 2) }
            if side == .left { left = s } else { right = s }
        }

        var whole = Scores<FacialExpression>()
        for expression in FacialExpression.bilateral {
            guard let l = left[expression], let r = right[expression] else { continue }
            whole[expression] = expression == .eyeClosure ? max(l, r) : ((l + r) / 2).rounded(toPlaces: 2)
        }
        let unilateral: [(FacialExpression, Double)] = [
            (.innerBrowRaise, C.browInnerUp(b.value("browInnerUp"))),
            (
                .lipSuck,
                mean(
                    C.mouthRoll((b.value("mouthRollUpper") + b.value("mouthRollLower")) / 2),
                    C.lipThinning(f.lipThickness))
            ),
            (.lipPucker, mean(C.mouthPucker(b.value("mouthPucker")), C.mouthNarrowing(f.mouthWidth))),
            (.lipPress, C.mouthPress((b.value("mouthPressLeft") + b.value("mouthPressRight")) / 2)),
            (.mouthOpen, mean(C.jawOpenForLips(b.value("jawOpen")), C.lipGap(f.lipGap))),
            (.chinRaise, C.mouthShrugLower(b.value("mouthShrugLower"))),
            (.jawDrop, C.jawOpen(b.value("jawOpen"))),
        ]
        for (expression, value) in unilateral { whole[expression] = (100 * value).rounded(toPlaces: 2) }
        if let l = left[.smile], let r = right[.smile] {
            whole[.smirk] = (100 * C.smirk(abs(l - r) / 100)).rounded(toPlaces: 2)
        }
        whole[.attention] = Self.attention(pose: pose, gaze: gaze).rounded(toPlaces: 2)
        return Expressions(scores: whole, left: left, right: right)
    }

    /// Affdex's attention, 0...100: 100 while the face and eyes point at the camera, falling to 0 as the
    /// direction of regard (head yaw/pitch plus the eyes' rotation in the head) turns away.
    ///
    /// The direction of regard is the measured `Gaze` (`GazeEstimator`: head pose plus the eyes' rotation,
    /// the same numbers the `gaze` metric reports); without it (no irises, eyes closed), head pose alone.
    package static func attention(pose: HeadPose, gaze: Gaze?) -> Double {
        let yaw = gaze?.yaw ?? pose.yaw
        let pitch = gaze?.pitch ?? pose.pitch
        let away = (yaw * yaw + pitch * pitch).squareRoot()
        return 100 * Attention.curve(away)
    }

    /// log10 of a blendshape score, floored at 1e-9 (the model never outputs 0, but a hand-made one may).
    private static func log10(_ value: Double) -> Double { Double.log10(Swift.max(value, 1e-9)) }

    private enum Side { case left, right }
    private typealias Sides = FaceFeatures.Sides
    private func mean(_ values: Double...) -> Double { values.reduce(0, +) / Double(values.count) }

    /// How attention falls off as the direction of regard turns from the camera.
    enum Attention {
        /// Full attention within 10 degrees of the camera, none beyond 45.
        static let curve = ResponseCurve(neutral: 45, full: 10)
    }

    /// The response curves: raw blendshape scores (0...1) or `FaceFeatures` values (interocular
    /// distances, or the eye aspect ratio) to activations.
    enum C {
        /// `mouthSmile` is 0 on a relaxed face (its neutral median is 0.0004), so its own zero is the curve's.
        static let smile = ResponseCurve(neutral: 0.0, full: 0.7)
        static let cornerDrop = ResponseCurve(neutral: -0.01, full: -0.06)
        /// Blendshapes whose relaxed median is within 0.02 of 0 start from their own zero (as `smile`): a
        /// floor at the median ties half of all faces at 0, and the order among them is what separates a
        /// slight movement from none (issue 39's prototype AUCs).
        static let browOuterUp = ResponseCurve(neutral: 0.0, full: 0.6)
        /// The blendshape as it is: posed faces reach 0.8 to 1, and a full point below 1 ties them at 100.
        static let browInnerUp = ResponseCurve(neutral: 0.0, full: 1.0)
        /// From its own zero although its relaxed median is 0.13.
        ///
        /// A floor there left the blendshape 0 on most faces of JAFFE and fer2013, so the order among slightly
        /// lowered brows was lost (AU4 prototype AUC, issue 39: JAFFE 0.533 to 0.681, fer2013 0.585 to 0.594,
        /// muxspace 0.583 to 0.582). A relaxed face reads up to 9 more (0.6–8.4 on yalefaces' eight neutral
        /// faces); in streams the per-person baseline takes it off.
        static let browDown = ResponseCurve(neutral: 0.0, full: 0.7)
        static let innerBrowLowered = ResponseCurve(neutral: 0.26, full: 0.2)
        static let eyeBlink = ResponseCurve(neutral: 0.12, full: 0.7)
        static let eyeClosing = ResponseCurve(neutral: 0.29, full: 0.08)
        static let eyeWide = ResponseCurve(neutral: 0.0, full: 0.4)
        static let eyeSquint = ResponseCurve(neutral: 0.44, full: 0.9)
        static let lowerLid = ResponseCurve(neutral: -0.03, full: -0.005)
        static let cheek = ResponseCurve(neutral: -0.375, full: -0.31)
        /// log10 of `cheekSquint`, which the model keeps in the millionths (its sigmoid's flat tail).
        ///
        /// Its order there still says how far the cheeks rise; neutral is the relaxed median of both sides (-6.62 and
        /// -6.49), full the median of posed happy faces (yalefaces and JAFFE: -5.95 and -6.07). Added to the
        /// geometry it lifts cheekRaise's prototype AUCs from 0.787 / 0.790 / 0.681 (muxspace, JAFFE, fer2013)
        /// to 0.79 / 0.92 / 0.75, above the peer's cheekSquint (issue 39); any full point from -6.0 to -5.2
        /// does as well.
        static let cheekSquint = ResponseCurve(neutral: -6.55, full: -6.0)
        static let noseWing = ResponseCurve(neutral: -0.41, full: -0.33)
        static let mouthUpperUp = ResponseCurve(neutral: 0.0, full: 0.5)
        static let noseToLip = ResponseCurve(neutral: 0.19, full: 0.12)
        static let mouthRoll = ResponseCurve(neutral: 0.03, full: 0.5)
        static let lipThinning = ResponseCurve(neutral: 0.18, full: 0.07)
        static let mouthPucker = ResponseCurve(neutral: 0.01, full: 0.8)
        static let mouthNarrowing = ResponseCurve(neutral: 0.58, full: 0.42)
        static let mouthPress = ResponseCurve(neutral: 0.02, full: 0.6)
        static let jawOpenForLips = ResponseCurve(neutral: 0.02, full: 0.5)
        static let lipGap = ResponseCurve(neutral: 0.045, full: 0.2)
        static let mouthFrown = ResponseCurve(neutral: 0.0, full: 0.3)
        static let mouthShrugLower = ResponseCurve(neutral: 0.0, full: 0.5)
        static let mouthDimple = ResponseCurve(neutral: 0.0, full: 0.4)
        static let jawOpen = ResponseCurve(neutral: 0.0, full: 0.6)
        static let mouthStretch = ResponseCurve(neutral: 0.0, full: 0.4)
        /// Smile difference between the sides (0...1) to smirk.
        static let smirk = ResponseCurve(neutral: 0.1, full: 0.5)
    }
}

extension Double {
    /// Rounded to `places` decimals (scores are reported to 0.01; more digits are noise).
    public func rounded(toPlaces places: Int) -> Double {
        let scale = Double.pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
