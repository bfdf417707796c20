import Foundation
import Mien
public import MienStudies

/// Panels in which nothing differs and nobody shares a response.
///
/// The development talking heads cut at random onsets, groups drawn at random. A study of one should report a difference or a significant ISC no more
/// often than its error rate allows (`MienDev null-studies`; `StudyNullTests`).
public struct NullPanels: Sendable {
    /// An analysed recording: its JSON Lines, events CSV and length in seconds.
    public struct Recording: Sendable {
        public var jsonl: String
        public var events: String?
        public var seconds: Double

        public init(jsonl: String, events: String?, seconds: Double) {
            self.jsonl = jsonl
            self.events = events
            self.seconds = seconds
        }
    }

    public var recordings: [Recording]
    /// Participants per panel.
    public var participants: Int
    /// Groups each panel's participants are dealt into at random (as evenly as they go).
    public var groups: Int
    /// The stimulus's length, seconds; nil: the rest of each recording after its onset.
    public var duration: Double?
    /// Onsets are drawn uniformly from 0 up to this many seconds (nil: as far as the duration fits).
    public var latestOnset: Double?
    /// Whether no two participants see the same footage: each recording is cut into consecutive windows of
    /// `duration` (the cut's start drawn at random), and every participant gets a window of their own.
    ///
    /// Without it, participants cut from one recording at nearby onsets watch nearly the same footage and
    /// really do share a response (a lag of half a second is alignment at 1 s bins): a null for differences
    /// between random groups, but not for the ISC.
    public var disjoint: Bool
    public var settings: StudySettings

    public init(
        recordings: [Recording], participants: Int, groups: Int, duration: Double?, latestOnset: Double?,
        disjoint: Bool = false, settings: StudySettings
    ) {
        self.disjoint = disjoint
        self.recordings = recordings
        self.participants = participants
        self.groups = groups
        self.duration = duration
        self.latestOnset = latestOnset
        self.settings = settings
    }

    /// One window of footage per participant, no two overlapping: (recording, onset).
    private func windows(using generator: inout SeededGenerator) throws -> [(Int, Double)] {
        guard let duration else { throw MienError(.invalidArgument, "disjoint windows need a duration") }
        var all: [(Int, Double)] = []
        for (which, recording) in recordings.enumerated() {
            let count = Int((recording.seconds / duration).rounded(.down))
            guard count > 0 else { continue }
            let slack = recording.seconds - Double(count) * duration
            let start = Double(Int.random(in: 0...Int(slack * 1000), using: &generator)) / 1000
            all += (0..<count).map { (which, start + Double($0) * duration) }
        }
        guard all.count >= participants else {
            throw MienError(
                .invalidArgument,
                "the recordings hold \(all.count) windows of \(duration) s, fewer than \(participants) participants")
        }
        return Array(all.shuffled(using: &generator).prefix(participants))
    }

    /// Panel `index` (drawn from `seed` and the index alone, so any one can be made again), aggregated.
    /// - Throws: what reading a recording's results throws.
    public func study(_ index: Int, seed: UInt64) throws -> Study {
        var generator = SeededGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        var rowsByRecording: [Int: [StudyManifest.Row]] = [:]
        let labels = (0..<participants).map { $0 % groups }
        let shuffled = labels.shuffled(using: &generator)
        let windows = disjoint ? try self.windows(using: &generator) : []
        for participant in 0..<participants {
            let which: Int
            let onset: Double
            if disjoint {
                (which, onset) = windows[participant]
            } else {
                which = Int.random(in: 0..<recordings.count, using: &generator)
                let room = min(latestOnset ?? .infinity, recordings[which].seconds - (duration ?? 1))
                onset = Double(Int.random(in: 0...Int(max(0, room) * 1000), using: &generator)) / 1000
            }
            let row = StudyManifest.Row(
                line: participant + 2, recording: recordings[which].jsonl, participant: "p\(participant + 1)",
                stimulus: "clip", onset: onset, duration: duration, group: "g\(shuffled[participant] + 1)")
            rowsByRecording[which, default: []].append(row)
        }
        var series: [ParticipantSeries] = []
        for (which, rows) in rowsByRecording.sorted(by: { $0.key < $1.key }) {
            let reader = StudyRecordingReader(
                jsonl: recordings[which].jsonl, events: recordings[which].events, settings: settings,
                watched: { _ in false })
            series += try reader.read(rows)
        }
        series.sort { $0.row.line < $1.row.line }
        return Study(participants: series, settings: settings)
    }
}
