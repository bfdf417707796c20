import Foundation
package import MienCore

/// What the HTML report shows about one input, gathered frame by frame at bounded memory: the summary,
/// and per face the timelines of emotions, valence and engagement, its appearance and a thumbnail.
package struct InputReport: Sendable {
    /// One face of the input.
    package struct Face: Sendable {
        /// The face's ID (`FaceResult.faceId`).
        package var faceId: Int
        /// Metric name (Affdex spelling: emotion names, "valence", "engagement") to its timeline.
        package var timelines: [String: Timeline] = [:]
        /// One finished episode, drawn as a band on the timelines.
        package struct Band: Sendable, Codable, Equatable {
            package var metric: String
            package var onset: Double
            package var offset: Double
        }
        /// The face's finished episodes, in the order they finished (at most `maximumEpisodesPerFace`).
        package var episodes: [Band] = []
        /// A square picture of the face from its best frame (largest, preferably without quality flags).
        package var thumbnail: Frame?
        /// The thumbnail as JPEG, when the report was read back from a file (`InputReport`'s `Codable`
        /// form: a shard's `<name>.report.json`) rather than gathered from frames.
        package var thumbnailJPEG: [UInt8]?
        /// The latest appearance (already aggregated over the track by the detector).
        package var gender: Gender?
        /// The latest apparent-age bracket.
        package var age: AgeBracket?
        /// Whether the face wears glasses, latest reading.
        package var glasses: Bool?
        var thumbnailScore = 0.0

        /// The thumbnail as JPEG (quality 85), from the file it was read from or encoded from the pixels.
        package var encodedThumbnail: [UInt8]? {
            thumbnailJPEG ?? thumbnail.flatMap { try? $0.encoded(as: .jpeg(quality: InputReport.thumbnailQuality)) }
        }
    }

    /// JPEG quality of the thumbnails in the page and in report files.
    static let thumbnailQuality = 85

    /// Side of the thumbnails, pixels.
    package static let thumbnailSize = 96
    /// A later frame replaces the thumbnail only when its score is this much higher (avoids re-cropping
    /// on every frame of a slow zoom).
    static let thumbnailImprovement = 1.15
    /// Most episode bands kept per face (a 2-hour talk at 20 blinks a minute has 2,400 blinks).
    static let maximumEpisodesPerFace = 5000
    /// The catalog's emotions-group scores, which get timelines (neutral left out: it is what the others leave).
    private static let timelineEntries = MetricCatalog.entries.filter {
        $0.group == .emotions && $0.score != nil && $0.name != "emotions.neutral"
    }
    /// Metrics that get timelines, by their CSV column's name (`joy`, `valence`).
    package static let timelineMetrics: [String] = timelineEntries.compactMap { $0.columns.first?.name }

    /// The input reported on (its path or name).
    package let input: String
    /// The same numbers the summary file holds.
    package private(set) var summary: InputSummary
    /// The faces, by `faceId`.
    package private(set) var faces: [Int: Face] = [:]
    /// Seconds of the first and last frame seen.
    package private(set) var timeRange: ClosedRange<Double>?
    /// Set when the input did not finish normally ("interrupted", or the error).
    package var problem: String?

    private let timelineCapacity: Int

    /// An empty report of `input`, filled frame by frame.
    /// - Parameters:
    ///   - input: the input's name, as the report shows it.
    ///   - timelineCapacity: most points per timeline (see `Timeline`).
    package init(input: String, timelineCapacity: Int = 600) {
        self.input = input
        summary = InputSummary(input: input)
        self.timelineCapacity = timelineCapacity
    }

    /// Adds one frame's result; `frame` (its pixels, when the caller has them) feeds the thumbnails.
    package mutating func add(_ result: DetectorResult, frame: Frame?) {
        summary.add(result)
        let t = result.timestamp
        timeRange = timeRange.map { min($0.lowerBound, t)...max($0.upperBound, t) } ?? t...t
        for (id, faceResult) in result.faces ?? [:] {
            var face = faces[id] ?? Face(faceId: id)
            func record(_ name: String, _ value: Double?) {
                guard let value else { return }
                face.timelines[name, default: Timeline(capacity: timelineCapacity)].add(time: t, value: value)
            }
            for entry in Self.timelineEntries {
                if let name = entry.columns.first?.name { record(name, entry.score?(faceResult)) }
            }
            record("gazeYaw", faceResult.gaze?.yaw)
            record("gazePitch", faceResult.gaze?.pitch)
            face.gender = faceResult.gender ?? face.gender
            face.age = faceResult.age ?? face.age
            face.glasses = faceResult.glasses ?? face.glasses
            let score = faceResult.faceBounds.width * (faceResult.flags.isEmpty ? 2 : 1)
            if let frame, score > face.thumbnailScore * Self.thumbnailImprovement,
                let picture = try? frame.thumbnail(of: faceResult.faceBounds, size: Self.thumbnailSize)
            {
                face.thumbnail = picture
                face.thumbnailScore = score
            }
            faces[id] = face
        }
        add(result.episodes, toSummary: false)
    }

    /// Adds episodes finished at the input's end (a frame's come with `add(_:frame:)`).
    package mutating func add(_ episodes: [EpisodeEvent]) { add(episodes, toSummary: true) }

    private mutating func add(_ episodes: [EpisodeEvent], toSummary: Bool) {
        if toSummary { summary.add(episodes) }
        for event in episodes {
            guard let episode = event.episode, var face = faces[event.faceId] else { continue }
            // Bounded like the timelines: a long input's page stays small.
            if face.episodes.count < Self.maximumEpisodesPerFace {
                face.episodes.append(Face.Band(metric: event.metric, onset: episode.onset, offset: episode.offset))
            }
            faces[event.faceId] = face
        }
    }
}

extension InputReport {
    /// The same part with its timelines re-bucketed to at most `capacity` points (a page of thousands of
    /// inputs draws fewer points per chart); unchanged when they are already that small.
    package func resampled(timelineCapacity capacity: Int) -> InputReport {
        guard capacity < timelineCapacity else { return self }
        var copy = self
        for (id, face) in faces {
            var face = face
            face.timelines = face.timelines.mapValues { timeline in
                var smaller = Timeline(capacity: capacity)
                for sample in timeline.samples { smaller.add(time: sample.time, value: sample.value) }
                return smaller
            }
            copy.faces[id] = face
        }
        return copy
    }
}

/// The file form of a report part (`mien analyze --shard` writes one per input, `<name>.report.json`, and
/// `mien merge` builds the data set's page from them without reading the frames again): the summary's
/// running sums, the timelines, and each face's thumbnail as JPEG.
extension InputReport: Codable {
    private enum CodingKeys: String, CodingKey {
        case input, summary, faces, timeRange, problem, timelineCapacity
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        input = try container.decode(String.self, forKey: .input)
        summary = InputSummary(state: try container.decode(InputSummary.State.self, forKey: .summary))
        let faces = try container.decode([Face].self, forKey: .faces)
        self.faces = Dictionary(faces.map { ($0.faceId, $0) }, uniquingKeysWith: { $1 })
        timeRange = try container.decodeIfPresent(ClosedRange<Double>.self, forKey: .timeRange)
        problem = try container.decodeIfPresent(String.self, forKey: .problem)
        timelineCapacity = try container.decode(Int.self, forKey: .timelineCapacity)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(input, forKey: .input)
        try container.encode(summary.state, forKey: .summary)
        try container.encode(faces.keys.sorted().compactMap { faces[$0] }, forKey: .faces)
        try container.encodeIfPresent(timeRange, forKey: .timeRange)
        try container.encodeIfPresent(problem, forKey: .problem)
        try container.encode(timelineCapacity, forKey: .timelineCapacity)
    }
}

extension InputReport.Face: Codable {
    private enum CodingKeys: String, CodingKey {
        case faceId, timelines, thumbnailJPEG, gender, age, glasses, thumbnailScore, episodes
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        faceId = try container.decode(Int.self, forKey: .faceId)
        timelines = try container.decode([String: Timeline].self, forKey: .timelines)
        thumbnailJPEG = try container.decodeIfPresent(Data.self, forKey: .thumbnailJPEG).map { [UInt8]($0) }
        gender = try container.decodeIfPresent(Gender.self, forKey: .gender)
        age = try container.decodeIfPresent(AgeBracket.self, forKey: .age)
        glasses = try container.decodeIfPresent(Bool.self, forKey: .glasses)
        thumbnailScore = try container.decode(Double.self, forKey: .thumbnailScore)
        episodes = try container.decodeIfPresent([Band].self, forKey: .episodes) ?? []
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(faceId, forKey: .faceId)
        try container.encode(timelines, forKey: .timelines)
        try container.encodeIfPresent(encodedThumbnail.map { Data($0) }, forKey: .thumbnailJPEG)
        try container.encodeIfPresent(gender, forKey: .gender)
        try container.encodeIfPresent(age, forKey: .age)
        try container.encodeIfPresent(glasses, forKey: .glasses)
        try container.encode(thumbnailScore, forKey: .thumbnailScore)
        if !episodes.isEmpty { try container.encode(episodes, forKey: .episodes) }
    }
}
