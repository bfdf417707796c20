/// The 14 emoji Affdex scores, 0...100 each, named as Affdex names them.
public enum Emoji: String, ScoreKey {
    case laughing, smiley, relaxed, wink, kissing, kissingClosedEyes, stuckOutTongueWinkingEye, stuckOutTongue
    case stuckOutTongueClosedEyes, flushed, disappointed, rage, scream, smirk

    /// The emoji as Unicode text (Affdex 3.x reports the dominant emoji as its code point).
    public var unicode: String {
        switch self {
        case .laughing: "\u{1F606}"
        case .smiley: "\u{1F603}"
        case .relaxed: "\u{263A}"
        case .wink: "\u{1F609}"
        case .kissing: "\u{1F617}"
        case .kissingClosedEyes: "\u{1F61A}"
        case .stuckOutTongueWinkingEye: "\u{1F61C}"
        case .stuckOutTongue: "\u{1F61B}"
        case .stuckOutTongueClosedEyes: "\u{1F61D}"
        case .flushed: "\u{1F633}"
        case .disappointed: "\u{1F61E}"
        case .rage: "\u{1F621}"
        case .scream: "\u{1F631}"
        case .smirk: "\u{1F60F}"
        }
    }
}
