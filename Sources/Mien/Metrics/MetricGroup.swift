/// A word that switches on a set of metrics: the same word means the same metrics on every surface
/// (`mien analyze --metrics`, `mien frames --metrics`, `mien detect`'s flags, the service's `metrics=` and the
/// Python package's `metrics=`), because each of them reads the groups from `MetricCatalog`.
///
/// The groups follow Affdex's switches: `expressions` is its `setDetectAllExpressions` (the 21
/// expressions, without the emoji), `emoji` its `setDetectAllEmojis`, `emotions` its
/// `setDetectAllEmotions` (with valence and engagement), `appearance` its `setDetectAllAppearances`.
public enum MetricGroup: String, Sendable, CaseIterable, Codable, Comparable {
    case expressions, emoji, emotions, appearance, gaze

    /// Every metric of the group, as the catalog lists them.
    public var metrics: Set<Metric> {
        Set(MetricCatalog.entries.filter { $0.group == self }.compactMap(\.metric))
    }

    /// What the group holds, in a line (for `--help`, `mien metrics` and the docs).
    public var summary: String {
        switch self {
        case .expressions: "the 21 Affdex expressions with their left/right sides (and blinks per minute in streams)"
        case .emoji: "the 14 emoji and the dominant one"
        case .emotions: "the 7 emotions, neutral, valence and engagement"
        case .appearance: "perceived gender, apparent age and glasses"
        case .gaze: "where the person looks (angles in degrees), lookingAtCamera and onScreen (0-100)"
        }
    }

    /// Every word a surface accepts, in the order help texts list them: `all`, the groups, `none`.
    public static var words: [String] { ["all"] + allCases.map(\.rawValue) + ["none"] }

    /// The metrics that `words` name together (`all`: every metric; `none`: no metric, so `none` alone
    /// measures faces' boxes, points and pose only); no word at all means `all`.
    /// - Throws: `MienError.invalidOptions` naming a word that is not a group.
    public static func metrics(named words: [String]) throws -> Set<Metric> {
        if words.isEmpty { return .all }
        var chosen = Set<Metric>()
        for word in words {
            switch word {
            case "all": chosen.formUnion(Set<Metric>.all)
            case "none": continue
            default:
                guard let group = MetricGroup(rawValue: word) else {
                    let shown = word.count > 40 ? String(word.prefix(40)) + "…" : word
                    throw MienError(
                        .invalidOptions,
                        "unknown metric group '\(shown)' (known: \(Self.words.joined(separator: ", ")))")
                }
                chosen.formUnion(group.metrics)
            }
        }
        return chosen
    }

    /// Orders groups as the catalog does.
    public static func < (a: MetricGroup, b: MetricGroup) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}
