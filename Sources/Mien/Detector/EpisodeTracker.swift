import MienCore

/// Finds the episodes of every face's watched metrics, and their blinks, from a stream's results in order
/// (`EpisodeSettings`), and measures what needs a face's recent frames (`ViewerActivity`: eyes closed past a blink,
/// talking).
///
/// A pure function of the results: feeding it the same results (a run, or the results a checkpoint
/// replays) gives the same episodes. A face that cannot be measured on a frame (any quality flag) or a
/// frame not analysed suspends its episodes; a lost face ends them (`lost`) at the last frame it was seen,
/// unless faces are re-identified, when a returning face continues them; a shot cut ends them (`cut`);
/// `finish(at:)` ends what is left (`ended`).
struct EpisodeTracker: Sendable {
    let settings: EpisodeSettings
    /// Whether a lost face may come back under its ID (re-identification): its episodes wait for it.
    let facesReturn: Bool
    /// A fresh filter of `settings.smoothing`'s time constant, copied for each face and metric.
    private let smoother: ScoreSmoother?
    private var faces: [Int: FaceState] = [:]

    /// Each face's open episodes, smoothers and blinks: what a resumed run needs to go on.
    struct State: Sendable, Codable {
        fileprivate var faces: [Int: FaceState]
    }

    /// The state after the last result.
    var snapshot: State { State(faces: faces) }

    /// Goes on from `snapshot`.
    mutating func restore(_ snapshot: State) { faces = snapshot.faces }

    /// One face's detectors and blink history.
    fileprivate struct FaceState: Sendable, Codable {
        var episodes: [String: EpisodeDetector] = [:]
        var smoothers: [String: ScoreSmoother] = [:]
        var blinks: BlinkDetector
        var blinkOnsets: [Double] = []
        var firstSeen: Double
        var lastSeen: Double
        /// Lost, waiting to be re-identified.
        var away = false
        /// Eyes closed past a blink, talking (optional: a checkpoint written before it decodes without).
        var activity: ViewerActivity?
    }

    /// - Throws: `.invalidOptions` for a smoothing time constant that is not a positive number of seconds.
    init(settings: EpisodeSettings, facesReturn: Bool) throws {
        self.settings = settings
        self.facesReturn = facesReturn
        smoother = try settings.smoothing.map { try ScoreSmoother(timeConstant: $0) }
    }

    /// The episodes that start or finish on `result`'s frame, in face and metric order; sets each face's
    /// `blinkRate` and, with `smoothScores`, its smoothed scores.
    mutating func update(_ result: inout DetectorResult) -> [EpisodeEvent] {
        // Episodes are off when `settings` say so (`watches`); the viewer's activity is measured still.
        guard var measured = result.faces else { return [] }
        var events: [EpisodeEvent] = []
        for case .lost(let id) in result.events { events += lose(id) }
        let time = result.timestamp
        for id in measured.keys.sorted() {
            guard var face = measured[id] else { continue }
            var state =
                faces[id]
                ?? FaceState(blinks: BlinkDetector(options: settings.blinks), firstSeen: time, lastSeen: time)
            state.away = false
            state.lastSeen = time
            let trusted = face.flags.isEmpty
            // Blinks are a change within the face that a baseline still settling reads as well (its resting level
            // is the eyes open, from the first frames): `settling` alone does not stop them (issue 95: the blinks of
            // the short evaluation clips' first second were missed).
            let lidsTrusted = face.flags.allSatisfy { $0 == .settling }
            var activity = state.activity ?? ViewerActivity()
            activity.update(&face, at: time, blinks: settings.blinks)
            state.activity = activity
            for (metric, value) in Self.series(of: face) where settings.watches(metric) {
                var score = trusted ? value : nil
                if let fresh = smoother, let raw = score {
                    var smoother = state.smoothers[metric] ?? fresh
                    score = smoother.smooth(raw, at: time)
                    state.smoothers[metric] = smoother
                    if settings.smoothScores, let score { Self.set(metric, to: score, in: &face) }
                }
                // Valence (−100...100) has episodes on its positive side: negative values are below `off`.
                var detector = state.episodes[metric] ?? EpisodeDetector(options: settings.options(for: metric))
                let changes = detector.update(score, at: time)
                state.episodes[metric] = detector
                events += changes.map { Self.event($0, faceId: id, metric: metric) }
            }
            if settings.watches("blink"), let expressions = face.expressions,
                let left = expressions.left[.eyeClosure], let right = expressions.right[.eyeClosure]
            {
                for blink in state.blinks.update(
                    left: lidsTrusted ? left : nil, right: lidsTrusted ? right : nil, at: time)
                {
                    state.blinkOnsets.append(blink.episode.onset)
                    let metric = Self.metric(of: blink.eyes)
                    events.append(
                        EpisodeEvent(
                            faceId: id, metric: metric, change: .started, onset: blink.episode.onset,
                            apex: blink.episode.apex, apexValue: blink.episode.apexValue))
                    events.append(EpisodeEvent(faceId: id, metric: metric, finished: blink.episode))
                }
                face.blinkRate = Self.rate(state.blinkOnsets, firstSeen: state.firstSeen, at: time, settings.blinks)
            }
            measured[id] = face
            faces[id] = state
        }
        result.faces = measured
        return events
    }

    /// Ends every face's episodes at a shot cut (`cut`), at the last frame each face was seen.
    mutating func cut() -> [EpisodeEvent] {
        var events: [EpisodeEvent] = []
        for id in faces.keys.sorted() {
            events += end(id, because: .cut)
            faces[id] = nil
        }
        return events
    }

    /// Ends every open episode at the input's end (`ended`; a face waiting to return, `lost`).
    mutating func finish() -> [EpisodeEvent] {
        var events: [EpisodeEvent] = []
        for id in faces.keys.sorted() {
            events += end(id, because: faces[id]?.away == true ? .lost : .ended)
        }
        faces = [:]
        return events
    }

    /// Forgets every face (`Detector.reset()`).
    mutating func reset() { faces = [:] }

    private mutating func lose(_ id: Int) -> [EpisodeEvent] {
        guard faces[id] != nil else { return [] }
        if facesReturn {
            faces[id]?.away = true
            return []
        }
        defer { faces[id] = nil }
        return end(id, because: .lost)
    }

    private mutating func end(_ id: Int, because ending: Episode.Ending) -> [EpisodeEvent] {
        guard var state = faces[id] else { return [] }
        var events: [EpisodeEvent] = []
        for metric in state.episodes.keys.sorted() {
            guard var detector = state.episodes[metric] else { continue }
            events += detector.end(at: state.lastSeen, because: ending).map {
                Self.event($0, faceId: id, metric: metric)
            }
            state.episodes[metric] = detector
        }
        state.blinks.end(at: state.lastSeen)
        faces[id] = state
        return events
    }

    private static func event(_ change: EpisodeDetector.Change, faceId: Int, metric: String) -> EpisodeEvent {
        switch change {
        case .started(let onset, let apex, let apexValue):
            EpisodeEvent(
                faceId: faceId, metric: metric, change: .started, onset: onset, apex: apex, apexValue: apexValue)
        case .finished(let episode):
            EpisodeEvent(faceId: faceId, metric: metric, finished: episode)
        }
    }

    static func metric(of eyes: Blink.Eyes) -> String {
        switch eyes {
        case .both: "blink"
        case .left: "winkLeft"
        case .right: "winkRight"
        }
    }

    /// Blinks per minute over the window before `time`; nil during the warm-up.
    private static func rate(_ onsets: [Double], firstSeen: Double, at time: Double, _ options: BlinkOptions)
        -> Double?
    {
        let seen = time - firstSeen
        guard seen >= options.rateWarmUp else { return nil }
        let span = min(options.rateWindow, seen)
        guard span > 0 else { return nil }
        let count = onsets.filter { $0 > time - span && $0 <= time }.count
        return Double(count) * 60 / span
    }

    /// Every scored metric of `face` that is present, by `EpisodeEvent` name: the catalog's entries that episodes
    /// can follow, expressions, emoji and emotions first (the order events have always had), then the others.
    static func series(of face: FaceResult) -> [(String, Double)] {
        watchable.compactMap { entry in entry.score?(face).map { (entry.name, $0) } }
    }

    /// The entries episodes can follow, in the order their events are reported.
    private static let watchable: [MetricDescriptor] = {
        let first: [MetricGroup] = [.expressions, .emoji, .emotions]
        let entries = MetricCatalog.entries.filter(\.episodes)
        return first.flatMap { group in entries.filter { $0.group == group } }
            + entries.filter { !first.contains($0.group) }
    }()

    /// Writes a smoothed score back (`smoothScores`), where the catalog keeps it.
    private static func set(_ metric: String, to value: Double, in face: inout FaceResult) {
        MetricCatalog.entry(named: metric)?.value?.write(&face, value)
    }
}
