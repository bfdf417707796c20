import Foundation
import Mien

/// A study's manifest: one row per recording of a participant watching a stimulus (`mien study`).
///
/// Columns (a CSV file with a header row, any column order, other columns ignored): `recording` (a video
/// file; relative paths are read from the manifest's folder), `participant`, `stimulus` (its name), `onset`
/// (seconds into the recording when the stimulus started), and optionally `duration` (the stimulus's
/// length in seconds; empty: the rest of the recording) and `group` (a condition or a segment of the panel).
///
/// A row that cannot be used (an onset that is not a number, a participant listed twice for one stimulus)
/// is not thrown: it becomes a `Problem`, so the rest of the study goes on and the row is reported as
/// excluded.
public struct StudyManifest: Sendable {
    /// One usable row.
    public struct Row: Sendable, Equatable, Codable {
        /// The row's line in the manifest (the header is line 1).
        public var line: Int
        /// The video file, resolved against the manifest's folder.
        public var recording: String
        public var participant: String
        public var stimulus: String
        /// Seconds into the recording when the stimulus started (t = 0 of stimulus time).
        public var onset: Double
        /// The stimulus's length in seconds; nil: the rest of the recording.
        public var duration: Double?
        /// The participant's group for this stimulus; nil when the manifest has none.
        public var group: String?
        /// A collected study's participant state (`complete`, `incomplete`, ...; column `status`), nil elsewhere.
        public var status: String?
        /// A collected study's share of the stimulus measured, 0...1 (column `measured`), nil elsewhere.
        public var measured: Double?
        /// How many times a collected viewer was shown the stimulus (column `exposures`: attempts set aside and
        /// the one kept), nil elsewhere.
        public var exposures: Int?
        /// What a collected viewer's page recorded of the viewing (columns `ViewingFigures.columns`); nil when it
        /// recorded nothing, and elsewhere.
        public var viewing: ViewingFigures?
        /// What the participant's panel said of them (columns `attribute.NAME`: a collected study's declared
        /// attributes, or a manifest's own); nil when the manifest has none.
        public var attributes: [String: String]?

        public init(
            line: Int, recording: String, participant: String, stimulus: String, onset: Double,
            duration: Double? = nil, group: String? = nil, status: String? = nil, measured: Double? = nil,
            viewing: ViewingFigures? = nil, attributes: [String: String]? = nil, exposures: Int? = nil
        ) {
            self.exposures = exposures
            self.line = line
            self.recording = recording
            self.participant = participant
            self.stimulus = stimulus
            self.onset = onset
            self.duration = duration
            self.group = group
            self.status = status
            self.measured = measured
            self.viewing = viewing
            self.attributes = attributes
        }
    }

    /// A row left out, and why.
    public struct Problem: Sendable, Equatable, Codable {
        public var line: Int
        /// The participant and stimulus, when the row names them.
        public var participant: String?
        public var stimulus: String?
        public var message: String
        /// The row's group, recording and onset as written (empty when it has none).
        public var group: String?
        public var recording: String?
        public var onset: String?

        public init(
            line: Int, participant: String?, stimulus: String?, message: String, group: String? = nil,
            recording: String? = nil, onset: String? = nil
        ) {
            self.line = line
            self.participant = participant
            self.stimulus = stimulus
            self.message = message
            self.group = group
            self.recording = recording
            self.onset = onset
        }
    }

    /// The columns a manifest must have.
    public static let requiredColumns = ["recording", "participant", "stimulus", "onset"]
    /// The group name every study's curves use for the whole panel; no manifest group may take it.
    public static let wholePanel = "all"

    /// The manifest file.
    public let path: String
    /// The usable rows, in the file's order.
    public let rows: [Row]
    /// The rows left out.
    public package(set) var problems: [Problem]

    /// A manifest made of rows (from a DataFrame, or in tests); `problems` lists what the caller already refused.
    public init(path: String, rows: [Row], problems: [Problem] = []) {
        self.path = path
        self.rows = rows
        self.problems = problems
    }

    /// Reads the manifest at `path`.
    /// - Throws: `.unreadable` / `.corruptData` naming the file when it cannot be read as CSV, and
    ///   `.invalidArgument` naming it when a required column is missing or no row is usable.
    public init(path: String) throws {
        try self.init(table: try CSVRecords.read(path: path), path: path, folder: URL(fileURLWithPath: path))
    }

    /// Reads a manifest held in memory (a collected study's, made from its database): its recordings are left
    /// as written (relative names the caller resolves), and `source` names it in errors.
    /// - Throws: as `init(path:)`.
    package init(text: String, source: String) throws {
        try self.init(table: try CSVRecords.read(text: text, source: source), path: source, folder: nil)
    }

    /// - Parameter folder: the manifest's file, whose folder relative recordings are resolved against (nil: kept).
    private init(
        table: (columns: [String], rows: [(line: Int, cells: [String: String])], separator: Unicode.Scalar),
        path: String, folder manifestFile: URL?
    ) throws {
        // Column names are matched whatever their case and surrounding spaces (`Recording`, ` Onset`).
        var named: [String: String] = [:]
        for column in table.columns { named[column.lowercased(), default: column] = column }
        let missing = Self.requiredColumns.filter { named[$0] == nil }
        if !missing.isEmpty {
            let found = table.columns.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
            throw MienError(
                .invalidArgument,
                "the manifest lacks the column\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) (needs \(Self.requiredColumns.joined(separator: ", ")); optional duration, group); its first line, read as separated by \(CSVRecords.name(of: table.separator)), names \(found.isEmpty ? "no column" : found)",
                input: path)
        }
        let folder = manifestFile?.deletingLastPathComponent()
        var rows: [Row] = []
        var problems: [Problem] = []
        var seen: [String: Int] = [:]
        for (line, raw) in table.rows {
            var cells: [String: String] = [:]
            for (lowered, column) in named { cells[lowered] = raw[column] }
            let participant = cells["participant"].flatMap { $0.isEmpty ? nil : $0 }
            let stimulus = cells["stimulus"].flatMap { $0.isEmpty ? nil : $0 }
            func refuse(_ message: String) {
                problems.append(
                    Problem(
                        line: line, participant: participant, stimulus: stimulus, message: message,
                        group: cells["group"].flatMap { $0.isEmpty ? nil : $0 },
                        recording: cells["recording"].flatMap { $0.isEmpty ? nil : $0 },
                        onset: cells["onset"].flatMap { $0.isEmpty ? nil : $0 }))
            }
            guard let recording = cells["recording"], !recording.isEmpty else {
                refuse("no recording")
                continue
            }
            guard let participant else {
                refuse("no participant")
                continue
            }
            guard let stimulus else {
                refuse("no stimulus")
                continue
            }
            guard let onset = Double(cells["onset"] ?? ""), onset.isFinite, onset >= 0 else {
                refuse("onset '\(cells["onset"] ?? "")' is not a number of seconds (0 or more)")
                continue
            }
            var duration: Double? = nil
            if let text = cells["duration"], !text.isEmpty {
                guard let value = Double(text), value.isFinite, value > 0 else {
                    refuse("duration '\(text)' is not a positive number of seconds")
                    continue
                }
                duration = value
            }
            let group = cells["group"].flatMap { $0.isEmpty ? nil : $0 }
            if group == Self.wholePanel {
                refuse("group '\(Self.wholePanel)' is the name of the whole panel; give the group another name")
                continue
            }
            let key = participant + "\u{1F}" + stimulus
            if let first = seen[key] {
                refuse("participant \(participant) already watches \(stimulus) on line \(first) (duplicate row)")
                continue
            }
            seen[key] = line
            let resolved =
                recording.hasPrefix("/")
                ? recording : folder?.appendingPathComponent(recording).standardized.path ?? recording
            rows.append(
                Row(
                    line: line, recording: resolved, participant: participant, stimulus: stimulus, onset: onset,
                    duration: duration, group: group, status: cells["status"].flatMap { $0.isEmpty ? nil : $0 },
                    measured: cells["measured"].flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil },
                    viewing: ViewingFigures(cells: cells), attributes: Self.attributes(cells),
                    exposures: cells["exposures"].flatMap { Int(decimal: $0) }.flatMap { $0 >= 0 ? $0 : nil }))
        }
        if rows.isEmpty {
            let reasons = problems.prefix(3).map { "line \($0.line): \($0.message)" }.joined(separator: "; ")
            throw MienError(
                .invalidArgument, "the manifest has no usable row" + (reasons.isEmpty ? "" : " (\(reasons))"),
                input: path)
        }
        self.init(path: path, rows: rows, problems: problems)
    }

    /// A row's `attribute.NAME` cells that hold a value, by name; nil when there is none.
    static func attributes(_ cells: [String: String]) -> [String: String]? {
        let prefix = PanelAttribute.column("")
        var found: [String: String] = [:]
        for (column, value) in cells where column.hasPrefix(prefix) && !value.isEmpty {
            found[String(column.dropFirst(prefix.count))] = value
        }
        return found.isEmpty ? nil : found
    }

    /// The recordings to analyse, each once, in the manifest's order (a recording may hold several stimuli).
    public var recordings: [String] {
        var seen = Set<String>()
        return rows.map(\.recording).filter { seen.insert($0).inserted }
    }
}
