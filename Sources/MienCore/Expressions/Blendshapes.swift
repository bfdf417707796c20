/// MediaPipe's 52 blendshape scores, each 0...1, for one face in one frame: `_neutral` and 51 of
/// ARKit's 52 shapes.
///
/// ARKit's `tongueOut` is not among them (the model does not output it; its golden
/// test ends at `noseSneerRight`).
///
/// Left and right follow MediaPipe's model, which names sides as they appear in the image of an
/// unmirrored camera's subject (its `eyeBlinkLeft` is the person's left eye).
package struct Blendshapes: Sendable, Equatable {
    /// The 52 names in the model's output order (index 0 is `_neutral`).
    package static let names: [String] = [
        "_neutral", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight",
        "cheekPuff", "cheekSquintLeft", "cheekSquintRight", "eyeBlinkLeft", "eyeBlinkRight", "eyeLookDownLeft",
        "eyeLookDownRight", "eyeLookInLeft", "eyeLookInRight", "eyeLookOutLeft", "eyeLookOutRight", "eyeLookUpLeft",
        "eyeLookUpRight", "eyeSquintLeft", "eyeSquintRight", "eyeWideLeft", "eyeWideRight", "jawForward", "jawLeft",
        "jawOpen", "jawRight", "mouthClose", "mouthDimpleLeft", "mouthDimpleRight", "mouthFrownLeft",
        "mouthFrownRight", "mouthFunnel", "mouthLeft", "mouthLowerDownLeft", "mouthLowerDownRight", "mouthPressLeft",
        "mouthPressRight", "mouthPucker", "mouthRight", "mouthRollLower", "mouthRollUpper", "mouthShrugLower",
        "mouthShrugUpper", "mouthSmileLeft", "mouthSmileRight", "mouthStretchLeft", "mouthStretchRight",
        "mouthUpperUpLeft", "mouthUpperUpRight", "noseSneerLeft", "noseSneerRight",
    ]

    /// The 146 mesh points the model reads, as `(x, y)` in pixels, in this order (MediaPipe's
    /// `kLandmarksSubsetIdxs`).
    package static let meshSubset: [Int] = [
        0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39, 40, 46, 52, 53, 54, 55, 58, 61, 63, 65, 66, 67, 70, 78,
        80, 81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133, 136, 144, 145, 146, 148, 149, 150, 152,
        153, 154, 155, 157, 158, 159, 160, 161, 162, 163, 168, 172, 173, 176, 178, 181, 185, 191, 195, 197, 234, 246,
        249, 251, 263, 267, 269, 270, 276, 282, 283, 284, 285, 288, 291, 293, 295, 296, 297, 300, 308, 310, 311, 312,
        314, 317, 318, 321, 323, 324, 332, 334, 336, 338, 356, 361, 362, 365, 373, 374, 375, 377, 378, 379, 380, 381,
        382, 384, 385, 386, 387, 388, 389, 390, 397, 398, 400, 402, 405, 409, 415, 454, 466, 468, 469, 470, 471, 472,
        473, 474, 475, 476, 477,
    ]

    /// Scores in `names` order, 0...1.
    package let scores: [Double]

    /// - Throws: `.invalidArgument` unless there are exactly 52 scores.
    package init(scores: [Double]) throws {
        guard scores.count == Self.names.count else {
            throw MienError(.invalidArgument, "expected \(Self.names.count) blendshape scores, got \(scores.count)")
        }
        self.scores = scores
    }

    /// The score called `name` (an ARKit name such as `"jawOpen"`), or nil for an unknown name.
    package subscript(_ name: String) -> Double? {
        Self.positions[name].map { scores[$0] }
    }

    /// The score called `name`, or 0 for a name the model does not have (for fixed names in code).
    func value(_ name: String) -> Double { self[name] ?? 0 }

    private static let positions: [String: Int] = Dictionary(
        uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
}
