import Foundation
import Mien

/// A moment of a stimulus the study's reader should see on every chart: the brand's first appearance, the offer, a
/// line of dialogue (`mien study --marks`, `mien study init --marks`), in seconds of stimulus time.
public struct StudyMark: Sendable, Equatable, Hashable, Codable {
    /// The stimulus it marks.
    public var stimulus: String
    /// Its name (`brand`, `offer`): letters, digits, `_` and `-`.
    public var name: String
    /// Seconds from the stimulus's start.
    public var time: Double

    public init(stimulus: String, name: String, time: Double) {
        self.stimulus = stimulus
        self.name = name
        self.time = time
    }

    /// `marks.csv`'s header: what `write` writes and `read(csv:)` reads.
    package static let header = "stimulus,mark,time"

    /// Marks written as text: `[STIMULUS:]NAME=SECONDS[,SECONDS...]` (`brand=12.4,27`), the stimulus left out when
    /// the study has one.
    /// - Parameter stimuli: the study's stimuli, by name.
    /// - Throws: `.invalidArgument` saying what is wrong.
    package static func parse(_ text: String, stimuli: [String]) throws -> [StudyMark] {
        func refuse(_ why: String) -> MienError {
            MienError(.invalidArgument, "--marks \(text): \(why) (write [STIMULUS:]NAME=SECONDS[,SECONDS...])")
        }
        guard let equals = text.firstIndex(of: "=") else { throw refuse("no '='") }
        var name = String(text[..<equals]).trimmingCharacters(in: .whitespaces)
        let stimulus: String
        if let colon = name.firstIndex(of: ":") {
            stimulus = String(name[..<colon])
            name = String(name[name.index(after: colon)...])
        } else {
            guard stimuli.count == 1, let only = stimuli.first else {
                throw refuse("the study has \(stimuli.count) stimuli: say which (\(stimuli.joined(separator: ", ")))")
            }
            stimulus = only
        }
        let times = try text[text.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map {
            part -> Double in
            guard let time = Double(part.trimmingCharacters(in: .whitespaces)) else {
                throw refuse("'\(part)' is not a number of seconds")
            }
            return time
        }
        return times.map { StudyMark(stimulus: stimulus, name: name, time: $0) }
    }

    /// Marks from a file as `marks.csv` holds them (`stimulus,mark,time`, a row per mark).
    /// - Throws: `.invalidArgument` naming the line that is wrong.
    package static func read(csv text: String, file: String) throws -> [StudyMark] {
        var lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == header else {
            throw MienError(.invalidArgument, "a marks file starts with the line '\(header)'", input: file)
        }
        lines.removeFirst()
        return try lines.enumerated().compactMap { index, line -> StudyMark? in
            if line.isEmpty { return nil }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count == 3, let time = Double(cells[2]) else {
                throw MienError(
                    .invalidArgument, "line \(index + 2): expected STIMULUS,MARK,SECONDS, got '\(line.prefix(80))'",
                    input: file)
            }
            return StudyMark(stimulus: cells[0], name: cells[1], time: time)
        }
    }

    /// Checks `marks` against the study's stimuli and their durations (seconds).
    /// - Returns: the marks sorted by stimulus, then time.
    /// - Throws: `.invalidArgument` for an unknown stimulus, a name that is not a name, a time outside the stimulus,
    ///   or the same mark twice.
    package static func checked(_ marks: [StudyMark], durations: [String: Double]) throws -> [StudyMark] {
        for mark in marks {
            let named = "mark \(mark.stimulus):\(mark.name)"
            guard let duration = durations[mark.stimulus] else {
                throw MienError(
                    .invalidArgument,
                    "\(named): no stimulus \(mark.stimulus) in the study (\(durations.keys.sorted().joined(separator: ", ")))"
                )
            }
            guard CollectionSettings.isName(mark.name) else {
                throw MienError(.invalidArgument, "\(named): a mark's name is 1-64 letters, digits, '_' or '-'")
            }
            guard mark.time.isFinite, mark.time >= 0, mark.time <= duration + 1e-9 else {
                throw MienError(
                    .invalidArgument,
                    "\(named) at \(mark.time) s: outside the stimulus (0-\(ResultTable.number(duration, places: 3)) s)")
            }
        }
        guard Set(marks).count == marks.count else { throw MienError(.invalidArgument, "a mark is given twice") }
        return marks.sorted { ($0.stimulus, $0.time, $0.name) < ($1.stimulus, $1.time, $1.name) }
    }

    /// `marks.csv`: a row per mark.
    package static func csv(_ marks: [StudyMark]) -> String {
        ([header] + marks.map { "\($0.stimulus),\($0.name),\(ResultTable.number($0.time, places: 3))" })
            .joined(separator: "\n") + "\n"
    }
}
