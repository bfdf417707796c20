package import Foundation
import Mien

/// Reads one analysed recording back (its JSON Lines and events CSV) into a `ParticipantSeries` for each
/// manifest row that names it, in one pass over the file however many stimuli it holds.
///
/// Times are compared in whole milliseconds of stimulus time (`round(timestamp × 1000) − round(onset ×
/// 1000)`), the grid of the CSV files, so a frame falls in the same bin here as in a table read from the CSV.
package struct StudyRecordingReader: Sendable {
    /// Where a recording's results are.
    package enum Content: Sendable {
        /// Its JSON Lines file (`DetectorResult` per frame) and its events CSV (`EventTable`; nil or missing: no
        /// episode figures).
        case files(jsonl: String, events: String?)
        /// The same two in memory (a collected study's database); `source` names them in errors.
        case memory(lines: Data, events: String?, source: String)
    }

    package var content: Content
    package var settings: StudySettings
    /// Whether an episode tracker followed a metric in the run (its episode share is 0, not absent, when the
    /// participant had none).
    package var watched: @Sendable (String) -> Bool

    /// The metrics a study follows: every catalog entry with a score (categories and flags have no mean).
    static let scored = MetricCatalog.entries.filter { $0.score != nil }

    package init(
        jsonl: String, events: String?, settings: StudySettings, watched: @escaping @Sendable (String) -> Bool
    ) {
        self.init(content: .files(jsonl: jsonl, events: events), settings: settings, watched: watched)
    }

    package init(content: Content, settings: StudySettings, watched: @escaping @Sendable (String) -> Bool) {
        self.content = content
        self.settings = settings
        self.watched = watched
    }

    /// One row's running sums while the file is read.
    struct Window {
        let start: Int
        let end: Int?
        var frames = 0
        /// The processed frames' times, milliseconds from the onset.
        var frameTimes: [Int] = []
        var severalFaces = 0
        var faces: [Int: FaceSums] = [:]

        func contains(_ time: Int) -> Bool { time >= start && (end.map { time < $0 } ?? true) }
    }

    /// The series of each row (rows of other recordings are not read).
    /// - Throws: `.unreadable` / `.corruptData` naming the JSON Lines or events file.
    package func read(_ rows: [StudyManifest.Row]) throws -> [ParticipantSeries] {
        let binMs = settings.binMilliseconds
        var windows = rows.map { row in
            let start = Self.milliseconds(row.onset)
            return Window(start: start, end: row.duration.map { start + Self.milliseconds($0) })
        }
        var first: Int?
        var last: Int?
        var count = 0
        let each: (DetectorResult) throws -> Void = { result in
            let time = Self.milliseconds(result.timestamp)
            first = first ?? time
            last = time
            count += 1
            guard let faces = result.faces else { return }
            for index in windows.indices where windows[index].contains(time) {
                let relative = time - windows[index].start
                let bin = relative / binMs
                windows[index].frames += 1
                windows[index].frameTimes.append(relative)
                if faces.count > 1 { windows[index].severalFaces += 1 }
                for (id, face) in faces {
                    var sums = windows[index].faces[id] ?? FaceSums()
                    sums.times.append(relative)
                    let watching = Self.watching(face)
                    if let watching { sums.judged[relative] = watching }
                    // A frame the viewer did not watch counts for the viewing metrics only (unless --all-frames);
                    // so does a frame whose baseline had not settled (issue 95: a still face "responded" as the
                    // population norms faded out of its baseline).
                    let settling = face.flags.contains(.settling)
                    if settling {
                        sums.settling.insert(relative)
                    } else if sums.firstSettled == nil {
                        sums.firstSettled = relative
                    }
                    let responses = (settings.allFrames || watching != false) && !settling
                    if responses { sums.counted.insert(relative) }
                    for entry in Self.scored where responses || MetricCatalog.viewing.contains(entry.name) {
                        if let value = entry.score?(face), value.isFinite {
                            sums.add(value, metric: entry.name, bin: bin)
                        }
                    }
                    windows[index].faces[id] = sums
                }
            }
        }
        switch content {
        case .files(let jsonl, _): try JSONLinesReader(path: jsonl).forEachResult(each)
        case .memory(let lines, _, let source): try JSONLinesReader.forEachResult(in: lines, source: source, each)
        }
        let episodes = try readEpisodes()
        // The recording's frame interval, to know how far past its last frame it reaches.
        let interval = count > 1 ? Double((last ?? 0) - (first ?? 0)) / Double(count - 1) : 0
        let reach = (last ?? 0) + Int(saturating: interval)
        return zip(rows, windows).map { row, window in
            series(
                row: row, window: window, reach: count == 0 ? nil : reach, interval: Int(saturating: interval),
                episodes: episodes)
        }
    }

    /// The finished episodes per face: metric name to (onset, offset) in milliseconds on the recording's clock.
    private func readEpisodes() throws -> [Int: [String: [(Int, Int)]]]? {
        let table: [(line: Int, cells: [String: String])]
        let events: String
        switch content {
        case .files(_, let path):
            guard let path, FileManager.default.fileExists(atPath: path) else { return nil }
            (table, events) = (try CSVRecords.read(path: path).rows, path)
        case .memory(_, let text, let source):
            guard let text else { return nil }
            (table, events) = (try CSVRecords.read(text: text, source: source + " (events)").rows, source)
        }
        var episodes: [Int: [String: [(Int, Int)]]] = [:]
        for (line, cells) in table {
            guard let face = cells["faceId"].flatMap({ Int(decimal: $0) }), let metric = cells["metric"],
                let onset = cells["onset"].flatMap({ Double($0) }), let offset = cells["offset"].flatMap({ Double($0) })
            else {
                throw MienError(.corruptData, "line \(line) is not an episode row", input: events)
            }
            episodes[face, default: [:]][metric, default: []].append(
                (Self.milliseconds(onset), Self.milliseconds(offset)))
        }
        return episodes
    }

    private func series(
        row: StudyManifest.Row, window: Window, reach: Int?, interval: Int, episodes: [Int: [String: [(Int, Int)]]]?
    ) -> ParticipantSeries {
        let binMs = settings.binMilliseconds
        var notes: [String] = []
        guard let reach else { return ParticipantSeries(row: row, exclusion: "the recording has no frame") }
        if reach <= window.start {
            return ParticipantSeries(
                row: row,
                exclusion:
                    "onset \(Self.seconds(window.start)) s is beyond the recording's end (\(Self.seconds(reach)) s)")
        }
        let end = window.end ?? reach
        // A viewer who skipped watched until the skip: their share is of that part, and their recording ends there.
        let skipped = row.viewing?.skippedAt.map { window.start + Self.milliseconds($0) }
        let watchedEnd = min(end, skipped ?? end)
        // A gap under a quarter second is a page's last frame sent a little early, not footage missing: noted, it
        // would be a line of noise on every collected viewer (issue 98 item 3).
        if let stated = window.end, reach < stated - Self.endSlack, skipped == nil {
            notes.append(
                "the recording ends \(Self.seconds(stated - reach)) s before the stimulus does (duration \(Self.seconds(stated - window.start)) s)"
            )
        }
        let binCount = max(1, (end - window.start + binMs - 1) / binMs)
        let chosen = Self.viewer(window.faces)
        let faceFrames = chosen?.sums.times.count ?? 0
        // The share of the stimulus's time, not of its frames: each processed frame stands for the time until the
        // next one (the last, for one frame interval; the first, also for the part of an interval before it that
        // the window holds), so a recording whose rate varies is not weighted by it.
        func timeShare(_ times: Set<Int>) -> Double {
            var covered = 0
            for (index, time) in window.frameTimes.enumerated() where times.contains(time) {
                let next = index + 1 < window.frameTimes.count ? window.frameTimes[index + 1] : time + max(interval, 1)
                let from = index == 0 ? max(0, time - interval) : time
                covered += max(0, min(next, min(watchedEnd, reach) - window.start) - from)
            }
            return window.frames == 0 || watchedEnd <= window.start
                ? 0 : min(1, Double(covered) / Double(watchedEnd - window.start))
        }
        let share = timeShare(Set(chosen?.sums.times ?? []))
        // The part the responses read (watched and settled; issue 95 item 6: a face measured throughout but watching
        // in one frame entered the features from that frame at full weight).
        let countedShare = timeShare(chosen?.sums.counted ?? [])
        if let chosen, chosen.faces.count > 1 {
            notes.append(
                "faces \(chosen.faces.map(String.init).joined(separator: ", ")) taken as the participant, never in a frame together (a face that leaves the picture and comes back is given a new ID)"
            )
        }
        if let chosen, window.faces.count > chosen.faces.count {
            notes.append(
                "\(window.faces.count) faces seen, \(window.severalFaces) frames with more than one: the participant is face \(chosen.id), seen longest"
            )
        }
        var exclusion: String?
        if window.frames == 0 {
            exclusion = "no processed frame in the stimulus window"
        } else if chosen == nil {
            exclusion = "no face in the stimulus window"
        } else if share < settings.minimumFaceShare {
            exclusion =
                "face measured in \(Self.percent(share)) of the stimulus window (minimum \(Self.percent(settings.minimumFaceShare)))"
        } else if countedShare < settings.minimumWatchedShare {
            exclusion =
                "watched in \(Self.percent(countedShare)) of the stimulus window (minimum \(Self.percent(settings.minimumWatchedShare)); \(settings.allFrames ? "frames measured after the face settled" : "frames facing the screen with the eyes open, after the face settled"))"
        }
        var bins: [String: [Double?]] = [:]
        var means: [String: Double] = [:]
        var episodeBins: [String: [Double?]] = [:]
        var counts: [String: Int] = [:]
        if let chosen {
            let sums = chosen.sums
            for (metric, binSums) in sums.sums {
                let binCounts = sums.counts[metric] ?? []
                var values = [Double?](repeating: nil, count: binCount)
                for bin in binSums.indices where bin < binCount && binCounts[bin] > 0 {
                    values[bin] = binSums[bin] / Double(binCounts[bin])
                }
                bins[metric] = values
                let total = binCounts.reduce(0, +)
                if total > 0 { means[metric] = binSums.reduce(0, +) / Double(total) }
            }
            if let faceEpisodes = episodes.map({ Self.merged(chosen.faces, of: $0) }) {
                for (metric, spans) in faceEpisodes {
                    counts[metric] = spans.filter { window.contains($0.0) }.count
                }
                // A followed metric without an episode had 0, not none (issue 95: `episodes` was absent).
                for entry in Self.scored where watched(entry.name) && counts[entry.name] == nil {
                    counts[entry.name] = 0
                }
                for entry in Self.scored where watched(entry.name) && bins[entry.name] != nil {
                    let spans = (faceEpisodes[entry.name] ?? []).map { ($0.0 - window.start, $0.1 - window.start) }
                    var inside = [Int](repeating: 0, count: binCount)
                    var all = [Int](repeating: 0, count: binCount)
                    for time in sums.times where !sums.settling.contains(time) {
                        let bin = time / binMs
                        guard bin < binCount else { continue }
                        all[bin] += 1
                        if spans.contains(where: { $0.0 <= time && time <= $0.1 }) { inside[bin] += 1 }
                    }
                    episodeBins[entry.name] = zip(inside, all).map { $1 == 0 ? nil : Double($0) / Double($1) }
                }
            }
        }
        let settling = chosen?.sums.settling.count ?? 0
        let settledAt = settling > 0 ? chosen?.sums.firstSettled.map { max(0, $0) } : nil
        if settling > 0 {
            let until = settledAt.map { "until \(Self.seconds($0)) s" } ?? "to the end"
            notes.append(
                "\(settling) frames settling (the face's own neutral face not yet learnt from 1 s of its frames; \(until)): left out of the expression curves, means and tests"
            )
        }
        let attention = onScreen(
            window: window, chosen: chosen?.sums, binCount: binCount, visible: visibleShare(row))
        return ParticipantSeries(
            row: row, faceId: chosen?.id, frames: window.frames, faceFrames: faceFrames, faceShare: share,
            facesSeen: window.faces.count, framesWithSeveralFaces: window.severalFaces, exclusion: exclusion,
            notes: notes, binCount: binCount, bins: bins, episodeBins: episodeBins, means: means, episodeCounts: counts,
            onScreenShare: attention?.share, onScreenBins: attention?.bins, settlingFrames: settling,
            settledAt: settledAt.map { Double($0) / 1000 })
    }

    /// Milliseconds of `seconds`, held within ±2^53 (a time beyond that, never a real one, lies outside every
    /// window instead of trapping).
    static func milliseconds(_ seconds: Double) -> Int { Int(saturating: seconds * 1000) }
    /// How far before the stimulus's end a recording may stop without a note, in milliseconds.
    static let endSlack = 250

    static func seconds(_ milliseconds: Int) -> String { ResultTable.number(Double(milliseconds) / 1000, places: 3) }
    static func percent(_ share: Double) -> String { ResultTable.number(share * 100, places: 1) + " %" }
}
