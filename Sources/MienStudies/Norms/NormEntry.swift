package import Foundation
import Mien

/// One stimulus of one study as a norm keeps it (`mien norms add`): its figures (`NormFigures`, each the mean over
/// its included participants), how it was aggregated, and the tags it is filtered by.
package struct NormEntry: Sendable, Codable, Equatable {
    /// `STUDY/STIMULUS`: what `mien norms list` shows and `remove` takes.
    package var id: String
    /// SHA-256 of the stimulus's name and its panel (each row's participant, recording and onset): the same
    /// stimulus and panel added again, under any name, is refused.
    package var fingerprint: String
    package var study: String
    package var stimulus: String
    /// Filters (`category=snacks`, `region=UK`).
    package var tags: [String: String]
    /// Included participants.
    package var participants: Int
    /// The stimulus's length, seconds (its bins times the bin).
    package var seconds: Double
    /// The study's bin, seconds: peaks depend on it, so a stimulus is compared only with entries of the same bin.
    package var bin: Double
    /// Whether the curves were of every frame (`--all-frames`) or of watched frames: compared only alike.
    package var allFrames: Bool
    /// The Mien that made the study (`study.json`'s generator).
    package var generator: String
    /// When it was added, ISO 8601.
    package var added: String
    /// Figure name to the mean over the participants who have it.
    package var figures: [String: Double]
    /// Figure name to how many participants have it.
    package var counts: [String: Int]

    /// `stimulus` of `study` as an entry.
    /// - Parameters:
    ///   - name: the study's name in the entry's ID.
    ///   - answers: its participants' scale answers concerning the stimulus (`NormFigures.answers`).
    /// - Throws: `.invalidArgument` when the stimulus has no included participant, or none with a figure.
    package static func make(
        _ study: Study, stimulus: String, name: String, answers: [String: [String: Double]], tags: [String: String],
        generator: String, added: Date = Date()
    ) throws -> NormEntry {
        let panel = study.participants.filter { $0.row.stimulus == stimulus }
        let included = panel.filter(\.included)
        guard !included.isEmpty else {
            throw MienError(
                .invalidArgument, "stimulus \(stimulus) has no included participant: a norm keeps nothing of it")
        }
        let values = NormFigures.perParticipant(study, stimulus: stimulus, answers: answers)
        guard !values.isEmpty else {
            throw MienError(
                .invalidArgument,
                "stimulus \(stimulus) has none of a norm's figures (smile, joy, surprise, valence, engagement, attention, answers)"
            )
        }
        let formatter = ISO8601DateFormatter()
        return NormEntry(
            id: "\(name)/\(stimulus)", fingerprint: fingerprint(stimulus, panel: included), study: name,
            stimulus: stimulus, tags: tags,
            participants: included.count,
            seconds: Double(included.map(\.binCount).max() ?? 0) * study.settings.bin, bin: study.settings.bin,
            allFrames: study.settings.allFrames, generator: generator, added: formatter.string(from: added),
            // Summed in the participants' order, as the comparison sums them.
            figures: values.mapValues { byParticipant in
                byParticipant.sorted { $0.key < $1.key }.reduce(0) { $0 + $1.value } / Double(byParticipant.count)
            },
            counts: values.mapValues(\.count))
    }

    /// The fingerprint of `stimulus` watched by `panel` (its included participants).
    package static func fingerprint(_ stimulus: String, panel: [ParticipantSeries]) -> String {
        let rows = panel.map { "\($0.row.participant)\t\($0.row.recording)\t\($0.row.onset)" }.sorted()
        return ModelStore.sha256(Data((["mien norm entry", stimulus] + rows).joined(separator: "\n").utf8))
    }

    /// Whether the entry carries every tag of `filters` with its value.
    package func matches(_ filters: [String: String]) -> Bool {
        filters.allSatisfy { tags[$0.key] == $0.value }
    }

    /// Tags written `key=value`, sorted.
    package var tagWords: String {
        tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// `KEY=VALUE` texts as tags (or filters), checked: a key of letters, digits, `_`, `-` and `.`; a value of one
    /// line, 1-100 characters; a key given twice refused.
    /// - Throws: `.invalidArgument` naming the text and `option`.
    package static func tags(_ texts: [String], option: String) throws -> [String: String] {
        var tags: [String: String] = [:]
        for text in texts {
            guard let equals = text.firstIndex(of: "=") else {
                throw MienError(.invalidArgument, "\(option) \(text): write KEY=VALUE (category=snacks)")
            }
            let key = String(text[..<equals])
            let value = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-."))
            guard !key.isEmpty, key.count <= 40, key.unicodeScalars.allSatisfy(allowed.contains) else {
                throw MienError(
                    .invalidArgument, "\(option) \(text): a key is 1-40 letters, digits, '_', '-' or '.'")
            }
            guard !value.isEmpty, value.count <= 100, !value.contains(where: \.isNewline) else {
                throw MienError(.invalidArgument, "\(option) \(text): a value is 1-100 characters on one line")
            }
            guard tags[key] == nil else { throw MienError(.invalidArgument, "\(option) \(key) is given twice") }
            tags[key] = value
        }
        return tags
    }
}
