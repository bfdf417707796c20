/// The expressions of one face in one frame: each score 0...100 for the whole face and, for the
/// `FacialExpression.bilateral` ones, for each side (the person's left and right).
///
/// A score that was not enabled or could not be measured is absent (nil), never 0. Encodes as a JSON
/// object with one key per present expression, `left` and `right` objects, and the CIDetector-style
/// booleans.
public struct Expressions: Sendable, Equatable, Codable {
    /// Whole-face scores.
    public var scores: Scores<FacialExpression>
    /// Scores of the person's left side (their left eye, left brow, left lip corner).
    public var left: Scores<FacialExpression>
    /// Scores of the person's right side.
    public var right: Scores<FacialExpression>

    /// `smile` at or above this counts as a smile (`hasSmile`): halfway up the 0...100 scale, where the
    /// dev data's smiling and non-smiling faces separate (see the expression table in docs/accuracy.md).
    public static let smileThreshold = 50.0
    /// A side's `eyeClosure` at or above this counts as a closed eye.
    public static let eyeClosedThreshold = 50.0

    public init(
        scores: Scores<FacialExpression> = Scores(), left: Scores<FacialExpression> = Scores(),
        right: Scores<FacialExpression> = Scores()
    ) {
        self.scores = scores
        self.left = left
        self.right = right
    }

    /// The whole-face score of `expression`, 0...100, or nil when absent.
    public subscript(_ expression: FacialExpression) -> Double? { scores[expression] }

    /// Core Image's `hasSmile`: `smile` >= `smileThreshold`; nil when smile is absent.
    public var hasSmile: Bool? { scores[.smile].map { $0 >= Self.smileThreshold } }
    /// Core Image's `leftEyeClosed` (the person's left eye); nil when eye closure is absent.
    public var leftEyeClosed: Bool? { left[.eyeClosure].map { $0 >= Self.eyeClosedThreshold } }
    /// Core Image's `rightEyeClosed` (the person's right eye); nil when eye closure is absent.
    public var rightEyeClosed: Bool? { right[.eyeClosure].map { $0 >= Self.eyeClosedThreshold } }

    /// Keeps only the expressions in `enabled`, on the whole face and on each side.
    public func keeping(_ enabled: Set<FacialExpression>) -> Expressions {
        Expressions(scores: scores.keeping(enabled), left: left.keeping(enabled), right: right.keeping(enabled))
    }

    private enum CodingKeys: String, CodingKey {
        case left, right, hasSmile, leftEyeClosed, rightEyeClosed
    }

    public init(from decoder: any Decoder) throws {
        scores = try Scores(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        left = try container.decodeIfPresent(Scores<FacialExpression>.self, forKey: .left) ?? Scores()
        right = try container.decodeIfPresent(Scores<FacialExpression>.self, forKey: .right) ?? Scores()
    }

    public func encode(to encoder: any Encoder) throws {
        try scores.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !left.isEmpty { try container.encode(left, forKey: .left) }
        if !right.isEmpty { try container.encode(right, forKey: .right) }
        try container.encodeIfPresent(hasSmile, forKey: .hasSmile)
        try container.encodeIfPresent(leftEyeClosed, forKey: .leftEyeClosed)
        try container.encodeIfPresent(rightEyeClosed, forKey: .rightEyeClosed)
    }
}
