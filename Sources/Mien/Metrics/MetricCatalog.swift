/// Every metric Mien measures, one `MetricDescriptor` each, in the order of the CSV's metric columns.
///
/// Adding a metric is adding its entry here (and the stage that computes it): the CSV header and rows, the
/// summary, the report's tables, the episode names, the group words and `mien metrics` follow, and the tests
/// that read the JSON schema, OpenAPI, the Python package and `docs/metrics.md` say what else must name it.
public enum MetricCatalog {
    /// Every metric, in CSV column order.
    public static let entries: [MetricDescriptor] =
        appearance + [gaze, LookingAtCamera.entry, OnScreen.entry] + emotions + expressions + [LipTightener.entry]
        + emoji
        + [dominantEmoji, blinkRate, eyesClosed, talking]

    /// The metrics that say whether the person watched rather than how they responded: a study charts their curves
    /// but leaves them out of the responses, differences, peaks and correlations it tests, whose error control
    /// covers the responses alone.
    public static let viewing: Set<String> = ["onScreen", "eyesClosed", "talking"]

    /// The entry named `name` (`expressions.smile`), if there is one.
    public static func entry(named name: String) -> MetricDescriptor? { byName[name] }

    /// The entry of a `Detector` switch.
    public static func entry(for metric: Metric) -> MetricDescriptor? { entries.first { $0.metric == metric } }

    /// Every CSV column the metrics write, in order.
    public static let columns: [MetricColumn] = entries.flatMap(\.columns)

    /// The metrics computed from the others (`MetricDescriptor.derive`).
    package static let derivedEntries = entries.filter { $0.derive != nil }

    /// The metrics their entry measures from the located face (`MetricDescriptor.measure`).
    package static let measuredEntries = entries.filter { $0.measure != nil }

    /// The metrics kept in a face's one store (`FaceResult.measures`): derived, measured by their entry, and the
    /// single numbers stages measure (valence, engagement, blinks per minute).
    static let storedEntries = entries.filter(\.stored)

    /// The columns `summary.json` gives a mean and maximum of, per face.
    static let summarizedColumns = columns.filter(\.summarized)

    private static let byName = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    // MARK: - The entries, by group

    private static let appearance: [MetricDescriptor] = [
        MetricDescriptor(
            name: "gender", group: .appearance, metric: .gender, stage: .affect, unit: .category,
            fields: ["gender"], columns: [.text("gender") { $0.gender?.rawValue }], episodes: false, actionUnit: nil,
            onlyInStreams: false, doc: "Perceived gender (female, male or unknown).", value: nil),
        MetricDescriptor(
            name: "age", group: .appearance, metric: .age, stage: .affect, unit: .category,
            fields: ["age", "ageYears"],
            columns: [
                .text("age") { $0.age?.rawValue }, .number("ageYears", places: 1, summarized: false) { $0.ageYears },
            ], episodes: false, actionUnit: nil, onlyInStreams: false,
            doc: "Apparent age: Affdex's bracket (under 18 ... 65+) and years.", value: nil),
        MetricDescriptor(
            name: "glasses", group: .appearance, metric: .glasses, stage: .affect, unit: .flag,
            fields: ["glasses"],
            columns: [MetricColumn("glasses", summarized: false) { .text($0.glasses.map { $0 ? "1" : "0" }) }],
            episodes: false, actionUnit: nil, onlyInStreams: false, doc: "Whether the face wears glasses.",
            value: nil),
    ]

    private static let gaze = MetricDescriptor(
        name: "gaze", group: .gaze, metric: .gaze, stage: .gaze, unit: .degrees,
        fields: ["gaze.yaw", "gaze.pitch", "gaze.eyeYaw", "gaze.eyePitch", "gaze.left", "gaze.right"],
        columns: [
            .number("gazeYaw") { $0.gaze?.yaw }, .number("gazePitch") { $0.gaze?.pitch },
            .number("eyeYaw", summarized: false) { $0.gaze?.eyeYaw },
            .number("eyePitch", summarized: false) { $0.gaze?.eyePitch },
        ], episodes: false, actionUnit: nil, onlyInStreams: false,
        doc: "Where the person looks, in degrees (yaw: to the person's left +, pitch: up +), and the eyes' rotation in "
            + "the head; absent when the eyes are closed, the face too small or turned away.",
        value: nil)

    private static let emotions: [MetricDescriptor] =
        Emotion.allCases.map { emotion in
            MetricDescriptor(
                name: "emotions.\(emotion.rawValue)", group: .emotions, metric: .emotion(emotion), stage: .affect,
                unit: .score, fields: ["emotions.\(emotion.rawValue)"],
                columns: [.number(emotion.rawValue) { $0.emotions?[emotion] }], episodes: true, actionUnit: nil,
                onlyInStreams: false, doc: emotionDoc(emotion),
                value: ScoreAccess(read: { $0.emotions?[emotion] }, write: { $0.emotions?[emotion] = $1 }))
        } + [
            .stored(
                "valence", group: .emotions, metric: .valence, stage: .affect, unit: .signedScore, episodes: true,
                actionUnit: nil, onlyInStreams: false,
                doc: "How positive the expression is: -100 (negative) ... 100 (positive)."),
            .stored(
                "engagement", group: .emotions, metric: .engagement, stage: .affect, unit: .score, episodes: true,
                actionUnit: nil, onlyInStreams: false, doc: "How expressive the face is."),
        ]

    private static let expressions: [MetricDescriptor] = FacialExpression.allCases.map { expression in
        let name = "expressions.\(expression.rawValue)"
        var fields = [name]
        if expression == .smile { fields.append("expressions.hasSmile") }
        if expression == .eyeClosure { fields += ["expressions.leftEyeClosed", "expressions.rightEyeClosed"] }
        if FacialExpression.bilateral.contains(expression) {
            fields += ["expressions.left.\(expression.rawValue)", "expressions.right.\(expression.rawValue)"]
        }
        let unit = expression.actionUnit.split(separator: " ").first.map(String.init)
        return MetricDescriptor(
            name: name, group: .expressions, metric: .expression(expression), stage: .expressions, unit: .score,
            fields: fields, columns: [.number(expression.rawValue) { $0.expressions?[expression] }], episodes: true,
            actionUnit: unit.flatMap { $0.hasPrefix("AU") ? $0 : nil }, onlyInStreams: false,
            doc: expressionDoc(expression),
            value: ScoreAccess(
                read: { $0.expressions?[expression] }, write: { $0.expressions?.scores[expression] = $1 }))
    }

    private static let emoji: [MetricDescriptor] = Emoji.allCases.map { emoji in
        MetricDescriptor(
            name: "emoji.\(emoji.rawValue)", group: .emoji, metric: .emoji(emoji), stage: .expressions, unit: .score,
            fields: ["emoji.\(emoji.rawValue)"],
            // Affdex names an expression and an emoji `smirk`: the emoji's column says which.
            columns: [.number(emoji == .smirk ? "smirkEmoji" : emoji.rawValue) { $0.emoji?[emoji] }], episodes: true,
            actionUnit: nil, onlyInStreams: false,
            doc: "\(emoji.unicode) \(emoji.rawValue): how much the face looks like the emoji.",
            value: ScoreAccess(read: { $0.emoji?[emoji] }, write: { $0.emoji?.scores[emoji] = $1 }))
    }

    private static let dominantEmoji = MetricDescriptor(
        name: "emoji.dominantEmoji", group: .emoji, metric: nil, stage: .expressions, unit: .category,
        fields: ["emoji.dominantEmoji"],
        columns: [.text("dominantEmoji") { face in face.emoji.map { $0.dominantEmoji?.unicode ?? "none" } }],
        episodes: false, actionUnit: nil, onlyInStreams: false,
        doc: "The emoji asked for that scores highest, as its character, or none below Affdex's threshold.",
        value: nil)

    private static let blinkRate = MetricDescriptor.stored(
        "blinkRate", group: .expressions, metric: nil, stage: .blinks, unit: .perMinute, summarized: false,
        episodes: false, actionUnit: nil, onlyInStreams: true,
        doc: "Blinks per minute over the last minute, in streams with eye closure on (after a face's first 5 s).")

    private static let eyesClosed = MetricDescriptor.stored(
        "eyesClosed", group: .expressions, metric: nil, stage: .blinks, unit: .score, episodes: false,
        actionUnit: nil, onlyInStreams: true,
        doc: "100 while both eyes have stayed shut longer than a blink (0.5 s: dozing, looking down), else 0; in "
            + "streams with eye closure on.")

    private static let talking = MetricDescriptor.stored(
        "talking", group: .expressions, metric: nil, stage: .blinks, unit: .score, episodes: false,
        actionUnit: nil, onlyInStreams: true,
        doc: "100 while the mouth opens and shuts as speech does (3 or more reversals of 12 points in 1.5 s; "
            + "laughter's bursts too), else 0; in streams with mouthOpen and jawDrop on, after a face's first 1.5 s.")

    private static func emotionDoc(_ emotion: Emotion) -> String {
        emotion == .neutral
            ? "Neutral: the share of the face showing none of the emotions."
            : "\(emotion.rawValue.prefix(1).uppercased() + emotion.rawValue.dropFirst()), from the face's look."
    }

    private static func expressionDoc(_ expression: FacialExpression) -> String {
        let text = expression.actionUnit
        return text.prefix(1).uppercased() + text.dropFirst() + "."
    }
}
