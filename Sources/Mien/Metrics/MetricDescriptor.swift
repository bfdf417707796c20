/// What one metric is, once for every surface: its name in results, its group, the stage that computes it,
/// its unit and range, its CSV columns, whether the summary and episodes follow it, and its one-line doc.
///
/// `MetricCatalog.entries` holds one per metric; the CSV header and rows, the summary, the episode names,
/// the group words and `mien metrics` are read from there, and the JSON schema, OpenAPI, the Python package
/// and `docs/metrics.md` are checked against it by tests.
public struct MetricDescriptor: Sendable {
    /// What a metric's values are.
    public enum Unit: String, Sendable, Codable {
        /// 0...100: 0 absent, 100 fully present.
        case score
        /// -100...100 (valence: negative to positive).
        case signedScore = "signed score"
        /// Angles in degrees.
        case degrees
        /// Blinks per minute.
        case perMinute = "per minute"
        /// One of a fixed set of names (gender, age bracket, emoji).
        case category
        /// True or false (CSV: 1 or 0).
        case flag
    }

    /// The stage of the `Detector` that computes a metric; a metric switched off keeps its stage from running
    /// when no other metric needs it.
    public enum Stage: String, Sendable, Codable {
        /// `ExpressionStage`: expressions and emoji from the face mesh (and blendshapes).
        case expressions
        /// `AffectStage`: emotions, valence, engagement and appearance from the face crop.
        case affect
        /// `GazeEstimator`: eye rotation from the iris points and the head pose.
        case gaze
        /// The stream tracker (`EpisodeTracker`): blinks, eyes shut past a blink and talking, from a face's recent
        /// frames.
        case blinks
    }

    /// The name in results: the JSON path within a face (`expressions.smile`, `emoji.smirk`, `valence`);
    /// episodes and `mien metrics` use the same.
    public let name: String
    /// The group word that switches it on.
    public let group: MetricGroup
    /// The `Detector` switch (`DetectorOptions.metrics`); nil for a figure derived from other metrics
    /// (`emoji.dominantEmoji`, `blinkRate`), present when they are.
    public let metric: Metric?
    /// The stage that computes it.
    public let stage: Stage
    /// What its values are.
    public let unit: Unit
    /// Every JSON path within a face that this metric writes (an object's path stands for everything in it).
    public let fields: [String]
    /// Its CSV columns, in order.
    public let columns: [MetricColumn]
    /// Whether an episode tracker follows it unless told otherwise (`--episode-metrics`).
    public let episodes: Bool
    /// The FACS action unit it stands for (`AU12`), for expressions that have one.
    public let actionUnit: String?
    /// Whether it is measured only in streams (video, camera, pushed frames), never in a single picture.
    public let onlyInStreams: Bool
    /// One line: what it measures.
    public let doc: String
    /// Where its number lives in a face (nil for categories): the one place the columns' numbers, the summary,
    /// episodes (and their smoothing's write-back), the report and studies read it.
    let value: ScoreAccess?
    /// Whether the value lives in the face's one store of catalog metrics (`FaceResult.measures`): written in
    /// JSON as a key of the face named `name`, its schema property and Python field generated from this entry.
    public var stored: Bool { value?.store != nil }
    /// For a metric the catalog computes from the face's other fields and the frame's size: its value.
    ///
    /// No stage measures such a metric (`lookingAtCamera` comes from the gaze and where the face is; `onScreen`
    /// reads the options' screen too). It is present when every switch in `needs` is on and this gives a number, and
    /// lands in `FaceResult.measures`.
    var derive: (@Sendable (FaceResult, FrameSize, DetectorOptions) -> Double?)? = nil
    /// For a metric its entry measures from the located face: its value, when its switch is on.
    ///
    /// It reads the mesh's pose-normalised geometry and the blendshapes (`MeasuredFace`); no stage names it, and
    /// it lands in `FaceResult.measures`.
    var measure: (@Sendable (MeasuredFace) -> Double?)? = nil
    /// The switches a derived metric is computed from (empty for the others).
    public var needs: Set<Metric> = []

    /// The number a face holds for it, if any.
    package var score: (@Sendable (FaceResult) -> Double?)? { value?.read }

    /// The entry of a score computed from the others (`derive`): one number, at `name` in JSON (a key of the face)
    /// and in a CSV column of that name, summarized and watched by episodes.
    static func derived(
        _ name: String, group: MetricGroup, stage: Stage, needs: Set<Metric>, doc: String,
        derive: @escaping @Sendable (FaceResult, FrameSize, DetectorOptions) -> Double?
    ) -> MetricDescriptor {
        var entry = stored(
            name, group: group, metric: nil, stage: stage, unit: .score, episodes: true, actionUnit: nil,
            onlyInStreams: false, doc: doc)
        entry.derive = derive
        entry.needs = needs
        return entry
    }

    /// The entry of a score its own code measures from the located face (`measure`).
    ///
    /// Switched by `Metric.measured(name)`: one number at `name` in JSON and in a CSV column of that name,
    /// summarized and watched by episodes. Its stage runs for it (`DetectorOptions` reads `stage`).
    static func measured(
        _ name: String, group: MetricGroup, stage: Stage, actionUnit: String?, doc: String,
        measure: @escaping @Sendable (MeasuredFace) -> Double?
    ) -> MetricDescriptor {
        var entry = stored(
            name, group: group, metric: .measured(name), stage: stage, unit: .score, episodes: true,
            actionUnit: actionUnit, onlyInStreams: false, doc: doc)
        entry.measure = measure
        return entry
    }

    /// The entry of a number kept in `FaceResult.measures` under `name`, with its one CSV column.
    static func stored(
        _ name: String, group: MetricGroup, metric: Metric?, stage: Stage, unit: Unit, summarized: Bool = true,
        episodes: Bool, actionUnit: String?, onlyInStreams: Bool, doc: String
    ) -> MetricDescriptor {
        let value = ScoreAccess.store(name)
        return MetricDescriptor(
            name: name, group: group, metric: metric, stage: stage, unit: unit, fields: [name],
            columns: [.number(name, summarized: summarized, value.read)], episodes: episodes, actionUnit: actionUnit,
            onlyInStreams: onlyInStreams, doc: doc, value: value)
    }

    /// The range of its values, when they have one.
    public var range: ClosedRange<Double>? {
        switch unit {
        case .score: 0...100
        case .signedScore: -100...100
        case .degrees, .perMinute, .category, .flag: nil
        }
    }

    /// How the summary aggregates it: each summarized column's mean and maximum over a face's frames.
    public var summarized: [String] { columns.filter(\.summarized).map(\.name) }
}

/// One CSV column of a metric, and how a face fills it.
public struct MetricColumn: Sendable {
    /// The header's name (Affdex spelling; unique in the file).
    public let name: String
    /// Whether `summary.json` gives its mean and maximum per face.
    public let summarized: Bool
    let cell: @Sendable (FaceResult) -> MetricCell

    init(_ name: String, summarized: Bool = true, cell: @escaping @Sendable (FaceResult) -> MetricCell) {
        self.name = name
        self.summarized = summarized
        self.cell = cell
    }

    /// A numeric column, rounded to `places` decimals.
    static func number(
        _ name: String, places: Int = 2, summarized: Bool = true, _ value: @escaping @Sendable (FaceResult) -> Double?
    ) -> MetricColumn {
        MetricColumn(name, summarized: summarized) { .number(value($0), places: places) }
    }

    /// A text column (never summarized).
    static func text(_ name: String, _ value: @escaping @Sendable (FaceResult) -> String?) -> MetricColumn {
        MetricColumn(name, summarized: false) { .text(value($0)) }
    }
}

/// A face's value in one column: a number (rounded in CSV) or text; nil when absent.
enum MetricCell {
    case number(Double?, places: Int)
    case text(String?)

    /// The number, for the summary.
    var number: Double? {
        if case .number(let value, _) = self { return value }
        return nil
    }
}

extension MetricDescriptor: Encodable {
    private enum CodingKeys: String, CodingKey {
        case name, group, stage, unit, range, fields, columns, summarized, episodes, actionUnit, onlyInStreams, doc
        case derived, measured, stored, needs
    }

    /// The entry as `mien metrics --json` prints it (the `Detector` switch and the accessors left out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(group, forKey: .group)
        try container.encode(stage, forKey: .stage)
        try container.encode(unit, forKey: .unit)
        try container.encode(range.map { [$0.lowerBound, $0.upperBound] }, forKey: .range)
        try container.encode(fields, forKey: .fields)
        try container.encode(columns.map(\.name), forKey: .columns)
        try container.encode(summarized, forKey: .summarized)
        try container.encode(episodes, forKey: .episodes)
        try container.encode(actionUnit, forKey: .actionUnit)
        try container.encode(onlyInStreams, forKey: .onlyInStreams)
        try container.encode(doc, forKey: .doc)
        try container.encode(derive != nil, forKey: .derived)
        try container.encode(measure != nil, forKey: .measured)
        try container.encode(stored, forKey: .stored)
        try container.encode(needs.compactMap { MetricCatalog.entry(for: $0)?.name }.sorted(), forKey: .needs)
    }
}

/// Where a metric's number lives in a `FaceResult`: how it is read, and written back (episode smoothing).
struct ScoreAccess: Sendable {
    let read: @Sendable (FaceResult) -> Double?
    let write: @Sendable (inout FaceResult, Double) -> Void
    /// The key in `FaceResult.measures`, for a number kept there.
    var store: String? = nil

    /// A number kept in the face's one store of catalog metrics.
    static func store(_ name: String) -> ScoreAccess {
        ScoreAccess(read: { $0.measures[name] }, write: { $0.measures[name] = $1 }, store: name)
    }
}
