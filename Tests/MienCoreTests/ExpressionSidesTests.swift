import Foundation
import MienCore
import Testing

/// Left and right are the person's, from the blendshapes to the scores.
///
/// MediaPipe's `...Left` blendshapes are the person's left side, and so are Mien's `left` scores. Checked
/// on synthetic scores, without models or evaluation data.
@Suite("Expression sides")
struct ExpressionSidesTests {
    /// The same geometry on both sides, so only the blendshapes make the face asymmetric.
    func symmetricFeatures(mouthWidth: Double = 0.9, cornerLift: Double = 0.3) throws -> FaceFeatures {
        let side = #"{"left":0.3,"right":0.3}"#
        let lift = #"{"left":\#(cornerLift),"right":\#(cornerLift)}"#
        let json = """
            {"eyeOpening":\(side),"browHeight":\(side),"innerBrowHeight":\(side),"browGap":0.3,"lipGap":0.05,
             "mouthWidth":\(mouthWidth),"cornerLift":\(lift),"noseToLip":0.3,"lipThickness":0.1,"noseToChin":0.9,
             "lowerLidHeight":\(side),"cheekHeight":\(side),"noseWingHeight":\(side)}
            """
        return try JSONDecoder().decode(FaceFeatures.self, from: Data(json.utf8))
    }

    func blendshapes(_ values: [String: Double]) throws -> Blendshapes {
        try Blendshapes(scores: Blendshapes.names.map { values[$0] ?? 0 })
    }

    func expressions(_ values: [String: Double]) throws -> Expressions {
        ExpressionMapper().expressions(
            blendshapes: try blendshapes(values), features: try symmetricFeatures(),
            pose: HeadPose(yaw: 0, pitch: 0, roll: 0, interocularDistance: 60))
    }

    @Test func aLeftSmileAndARightWink_landOnTheirOwnSides() throws {
        let e = try expressions(["mouthSmileLeft": 0.9, "eyeBlinkRight": 0.95])
        let (leftSmile, rightSmile) = (e.left[.smile] ?? 0, e.right[.smile] ?? 0)
        let (leftClosure, rightClosure) = (e.left[.eyeClosure] ?? 0, e.right[.eyeClosure] ?? 0)
        #expect(leftSmile > rightSmile + 20, "smile \(leftSmile) / \(rightSmile)")
        #expect(rightClosure > leftClosure + 20, "eye closure \(leftClosure) / \(rightClosure)")
        // The whole face: eye closure is the more closed eye (a wink scores), a one-sided smile is a smirk.
        #expect(e[.eyeClosure] == max(leftClosure, rightClosure))
        #expect((e[.smirk] ?? 0) > 0 && e.rightEyeClosed == true && e.leftEyeClosed == false)
    }

    /// Smile is MediaPipe's `mouthSmile` alone (issue 24: the lip corners' lift and the mouth's width
    /// ranked smiles worse under person-wise cross-validation), from the blendshape's own zero.
    @Test func smile_isTheBlendshapeAlone_whateverTheMouthsShape() throws {
        let pose = HeadPose(yaw: 0, pitch: 0, roll: 0, interocularDistance: 60)
        let smiling = try blendshapes(["mouthSmileLeft": 0.35, "mouthSmileRight": 0.35])
        var scores: [Double] = []
        for (width, lift) in [(0.5, -0.05), (0.9, 0.3), (0.75, 0.08)] {
            let features = try symmetricFeatures(mouthWidth: width, cornerLift: lift)
            scores.append(
                ExpressionMapper().expressions(blendshapes: smiling, features: features, pose: pose)[.smile] ?? -1)
        }
        #expect(scores == [50, 50, 50], "mouthSmile 0.35 is half of a full smile (0.7) on any mouth: \(scores)")
        let relaxed = ExpressionMapper().expressions(
            blendshapes: try blendshapes([:]), features: try symmetricFeatures(mouthWidth: 0.9, cornerLift: 0.3),
            pose: pose)
        #expect(relaxed[.smile] == 0, "a wide mouth with lifted corners but no mouthSmile is not a smile")
    }

    @Test func swappingTheBlendshapeSides_swapsEveryBilateralScore() throws {
        let pairs = [
            ("mouthSmile", 0.8), ("eyeBlink", 0.9), ("browOuterUp", 0.7), ("browDown", 0.6), ("eyeWide", 0.5),
            ("eyeSquint", 0.6), ("mouthDimple", 0.7), ("mouthFrown", 0.6), ("mouthStretch", 0.5),
            ("mouthUpperUp", 0.6),
        ]
        let one = try expressions(Dictionary(uniqueKeysWithValues: pairs.map { ($0.0 + "Left", $0.1) }))
        let other = try expressions(Dictionary(uniqueKeysWithValues: pairs.map { ($0.0 + "Right", $0.1) }))
        var asymmetric = 0
        for expression in FacialExpression.bilateral {
            let (l, r) = (one.left[expression] ?? 0, one.right[expression] ?? 0)
            #expect(l == (other.right[expression] ?? -1) && r == (other.left[expression] ?? -1), "\(expression)")
            if abs(l - r) > 5 { asymmetric += 1 }
        }
        #expect(asymmetric >= 8, "the blendshapes made \(asymmetric) expressions one-sided")
    }
}
