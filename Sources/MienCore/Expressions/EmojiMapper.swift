import RealModule

/// Scores Affdex's 14 emoji from a face's expressions (after the baseline) and, for the three tongue
/// emoji, the tongue evidence.
///
/// Each emoji is a fuzzy "all of": the geometric mean of the activations (score / 100) it needs, where
/// "not X" is `100 − X`, so one missing ingredient pulls the emoji down hard. Eyes: "closed" is the less
/// closed eye's `eyeClosure` (both shut), "open" is `100 −` the more closed eye's, "winking" is one eye
/// closed and the other not.
///
/// | emoji | needs |
/// |---|---|
/// | laughing 😆 | smile, mouthOpen, eyes closed or lids tightened |
/// | smiley 😃 | smile, mouthOpen, not eyes closed |
/// | relaxed ☺️ | smile, not mouthOpen |
/// | wink 😉 | winking |
/// | kissing 😗 | lipPucker, not eyes closed |
/// | kissingClosedEyes 😚 | lipPucker, eyes closed |
/// | stuckOutTongueWinkingEye 😜 | tongue, winking |
/// | stuckOutTongue 😛 | tongue, eyes open |
/// | stuckOutTongueClosedEyes 😝 | tongue, eyes closed |
/// | flushed 😳 | eyeWiden, browRaise, not mouthOpen |
/// | disappointed 😞 | lipCornerDepressor, not smile |
/// | rage 😡 | browFurrow, the strongest of lidTighten / lipPress / noseWrinkle, not smile |
/// | scream 😱 | jawDrop, browRaise |
/// | smirk 😏 | smirk |
package struct EmojiMapper: Sendable {
    package init() {}

    /// The emoji of a face with `expressions` (all 21 present) and `tongue` (0...100, or nil when the
    /// tongue cannot be measured; the tongue emoji are then absent).
    package func emoji(expressions e: Expressions, tongue: Double?) -> EmojiScores {
        func x(_ expression: FacialExpression) -> Double { e[expression] ?? 0 }
        let leftClosed = e.left[.eyeClosure] ?? x(.eyeClosure)
        let rightClosed = e.right[.eyeClosure] ?? x(.eyeClosure)
        let bothClosed = min(leftClosed, rightClosed)
        let eyesOpen = 100 - max(leftClosed, rightClosed)
        let winking = Self.all(max(leftClosed, rightClosed), 100 - bothClosed)
        var s = Scores<Emoji>()
        s[.laughing] = Self.all(x(.smile), x(.mouthOpen), max(bothClosed, x(.lidTighten)))
        s[.smiley] = Self.all(x(.smile), x(.mouthOpen), 100 - bothClosed)
        s[.relaxed] = Self.all(x(.smile), 100 - x(.mouthOpen))
        s[.wink] = winking
        s[.kissing] = Self.all(x(.lipPucker), 100 - bothClosed)
        s[.kissingClosedEyes] = Self.all(x(.lipPucker), bothClosed)
        if let tongue {
            s[.stuckOutTongueWinkingEye] = Self.all(tongue, winking)
            s[.stuckOutTongue] = Self.all(tongue, eyesOpen)
            s[.stuckOutTongueClosedEyes] = Self.all(tongue, bothClosed)
        }
        s[.flushed] = Self.all(x(.eyeWiden), x(.browRaise), 100 - x(.mouthOpen))
        s[.disappointed] = Self.all(x(.lipCornerDepressor), 100 - x(.smile))
        s[.rage] = Self.all(x(.browFurrow), max(x(.lidTighten), x(.lipPress), x(.noseWrinkle)), 100 - x(.smile))
        s[.scream] = Self.all(x(.jawDrop), x(.browRaise))
        s[.smirk] = x(.smirk)
        return EmojiScores(scores: s)
    }

    /// Fuzzy "all of" on 0...100 scores: 100 × the geometric mean of `scores / 100`.
    static func all(_ scores: Double...) -> Double {
        var product = 1.0
        for score in scores { product *= min(100, max(0, score)) / 100 }
        return (100 * Double.pow(product, 1 / Double(scores.count))).rounded(toPlaces: 2)
    }
}
