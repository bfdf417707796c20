import Foundation

/// A running summary of one input's results, built frame by frame (nothing is kept but the sums): frames,
/// processed frames, faces, and per face the mean and maximum of every measured metric and the share of
/// its processed frames in which each emotion was dominant.
public struct InputSummary: Sendable, Encodable {
    /// Mean and maximum of one metric over the frames where it was measured.
    public struct Statistic: Sendable, Encodable {
        /// Mean over the frames where it was measured.
        public var mean: Double
        /// Highest value.
        public var max: Double
        /// Frames where it was measured.
        public var frames: Int
    }

    /// The finished episodes of one metric of one face (`EpisodeEvent`).
    public struct EpisodeStatistic: Sendable, Encodable, Equatable {
        /// How many.
        public var count: Int
        /// Their summed duration, seconds.
        public var totalDuration: Double
        /// Their mean duration, seconds.
        public var meanDuration: Double
        /// Episodes per minute of the face's time in view (first to last seen); nil when it was seen in
        /// one frame only.
        public var perMinute: Double?
    }

    /// One face's summary.
    public struct Face: Sendable, Encodable {
        /// The face's ID (`FaceResult.faceId`).
        public var faceId: Int
        /// Processed frames in which the face was seen.
        public var frames: Int
        /// Timestamp of the first frame it was seen in, seconds.
        public var firstSeen: Double
        /// Timestamp of the last frame it was seen in, seconds.
        public var lastSeen: Double
        /// CSV column name (`smile`, `smirkEmoji`, `gazeYaw`: `MetricColumn.summarized`) to its statistics.
        public var metrics: [String: Statistic]
        /// Emotion name to the share (0...1) of the face's frames in which it was the dominant one.
        public var dominantEmotionShare: [String: Double]
        /// Episode metric name (`expressions.smile`, `blink`, ...) to its finished episodes.
        ///
        /// Blinks are `blink`'s count. Empty without episodes (stills, or episodes off).
        public var episodes: [String: EpisodeStatistic]
    }

    /// The input summarised (its path or name).
    public var input: String
    /// Frames of the input, processed or not.
    public var frames = 0
    /// Frames analysed (not left out by the rate cap or dropped).
    public var processedFrames = 0
    /// Timestamps (seconds) of the frames that start a new shot (`DetectorResult.shotCut`).
    public var shotCuts: [Double] = []
    /// How the input ended: `complete`, `stopped` or `failed`; nil until it ended.
    ///
    /// `complete`: every frame was read; `stopped`: a signal or `stop()` ended it early; `failed`: the input or
    /// the analysis failed part-way (the frames before are here, the rest are lost). `mien analyze --resume`
    /// skips only an input whose summary says `complete`.
    public var ended: String?
    /// Why the input failed (the error's message), when `ended` is `failed`.
    public var error: String?
    /// A folder's entries that were not read (not pictures, sub-folders), with the reason.
    public var skipped: [SkippedItem] = []
    /// A folder's pictures that could not be read or analysed, with the error.
    public var unreadable: [SkippedItem] = []
    /// The faces, by `faceId`.
    public var faces: [Face] { accumulators.keys.sorted().compactMap { accumulators[$0]?.summary } }

    private var accumulators: [Int: Accumulator] = [:]

    /// Running sums of one metric of one face.
    struct Sums: Sendable, Codable {
        var sum: Double
        var max: Double
        var count: Int
    }

    /// One face's running sums (part of `State`).
    struct Accumulator: Sendable, Codable {
        var faceId: Int
        var frames = 0
        var first = 0.0
        var last = 0.0
        var sums: [String: Sums] = [:]
        var dominant: [String: Int] = [:]
        /// Episode metric to (count, summed duration); optional so parts written before episodes decode.
        var episodes: [String: Sums]?

        mutating func add(_ name: String, _ value: Double?) {
            guard let value, value.isFinite else { return }
            let old = sums[name] ?? Sums(sum: 0, max: -Double.infinity, count: 0)
            sums[name] = Sums(sum: old.sum + value, max: Swift.max(old.max, value), count: old.count + 1)
        }

        var summary: Face {
            Face(
                faceId: faceId, frames: frames, firstSeen: first, lastSeen: last,
                metrics: sums.mapValues {
                    Statistic(mean: ($0.sum / Double($0.count)).rounded(toPlaces: 2), max: $0.max, frames: $0.count)
                },
                dominantEmotionShare: dominant.mapValues {
                    (Double($0) / Double(Swift.max(frames, 1))).rounded(toPlaces: 3)
                },
                episodes: (episodes ?? [:]).mapValues { sums in
                    let span = last - first
                    return EpisodeStatistic(
                        count: sums.count, totalDuration: sums.sum.rounded(toPlaces: 3),
                        meanDuration: (sums.sum / Double(Swift.max(sums.count, 1))).rounded(toPlaces: 3),
                        perMinute: span > 0 ? (Double(sums.count) * 60 / span).rounded(toPlaces: 2) : nil)
                })
        }
    }

    /// An empty summary of `input`, filled with `add(_:)`.
    public init(input: String) { self.input = input }

    /// Everything the summary has gathered, sums included, so it can be stored and rebuilt (a shard's
    /// report part, read back by `mien merge`); the summary file itself holds only the results.
    struct State: Sendable, Codable {
        var input: String
        var frames: Int
        var processedFrames: Int
        var accumulators: [Accumulator]
        /// Optional: parts written before shot cuts existed have none.
        var shotCuts: [Double]?
    }

    var state: State {
        State(
            input: input, frames: frames, processedFrames: processedFrames,
            accumulators: accumulators.keys.sorted().compactMap { accumulators[$0] }, shotCuts: shotCuts)
    }

    init(state: State) {
        input = state.input
        frames = state.frames
        processedFrames = state.processedFrames
        shotCuts = state.shotCuts ?? []
        accumulators = Dictionary(state.accumulators.map { ($0.faceId, $0) }, uniquingKeysWith: { $1 })
    }

    /// Adds one frame's result.
    public mutating func add(_ result: DetectorResult) {
        frames += 1
        guard let faces = result.faces else { return }
        processedFrames += 1
        if result.shotCut { shotCuts.append(result.timestamp) }
        for (id, face) in faces {
            var a = accumulators[id] ?? Accumulator(faceId: id, first: result.timestamp)
            a.frames += 1
            a.last = result.timestamp
            for column in MetricCatalog.summarizedColumns { a.add(column.name, column.cell(face).number) }
            if let top = face.emotions?.maximum { a.dominant[top.key.rawValue, default: 0] += 1 }
            accumulators[id] = a
        }
        add(result.episodes)
    }

    /// Counts the finished ones among `episodes` (a frame's, or those finished at the input's end).
    public mutating func add(_ episodes: [EpisodeEvent]) {
        for event in episodes {
            guard let duration = event.duration, var a = accumulators[event.faceId] else { continue }
            var all = a.episodes ?? [:]
            let old = all[event.metric] ?? Sums(sum: 0, max: 0, count: 0)
            all[event.metric] = Sums(
                sum: old.sum + duration, max: Swift.max(old.max, duration), count: old.count + 1)
            a.episodes = all
            accumulators[event.faceId] = a
        }
    }

    /// Records how the input ended (`ended`, `error`).
    public mutating func end(_ end: InputEnd) {
        switch end {
        case .complete:
            ended = "complete"
        case .stopped:
            ended = "stopped"
        case .failed(let failure):
            ended = "failed"
            error = failure.description
        }
    }

    private enum CodingKeys: String, CodingKey {
        case input, frames, processedFrames, shotCuts, ended, error, skipped, unreadable, faces
    }

    /// Records a picture of a folder that could not be read (`ResultWriter.unreadable(_:)`).
    public mutating func addUnreadable(_ error: MienError) {
        let file = error.input.map { ($0 as NSString).lastPathComponent } ?? ""
        unreadable.append(SkippedItem(file: file, reason: error.message))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(input, forKey: .input)
        try container.encode(frames, forKey: .frames)
        try container.encode(processedFrames, forKey: .processedFrames)
        try container.encode(shotCuts, forKey: .shotCuts)
        try container.encodeIfPresent(ended, forKey: .ended)
        try container.encodeIfPresent(error, forKey: .error)
        // Only folders have either; absent elsewhere, so other inputs' summaries read as before.
        if !skipped.isEmpty { try container.encode(skipped, forKey: .skipped) }
        if !unreadable.isEmpty { try container.encode(unreadable, forKey: .unreadable) }
        try container.encode(faces, forKey: .faces)
    }
}
