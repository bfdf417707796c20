package import Foundation
package import Mien

/// Where a collected study keeps what: one folder, readable without Mien.
///
/// ```
/// settings.json                     CollectionSettings
/// consent.md                        the consent text shown (a copy of settings' `consent`, to read and adapt)
/// stimuli/<file>                    the stimuli, checked by SHA-256
/// participants/<id>/session.json    ParticipantSession
/// participants/<id>/<stimulus>.jsonl, .csv, .events.csv, .summary.json   as `mien analyze --output` writes them
/// participants/<id>/<stimulus>.attempt<n>.jsonl, …   an earlier, interrupted attempt (listed in session.json)
/// participants/<id>/recording.webm  the webcam, only with `record`
/// manifest.csv                      one row per participant and stimulus measured, onset 0 on stimulus time
/// recorded.csv                      with `record`: the uploaded recordings with their measured onsets
/// fieldwork.json                    counts of those who declined or found the study full (no ID, no data)
/// ```
/// Every file is written whole under a temporary name and renamed into place (`AtomicFile`), so a crash leaves
/// the earlier version, never half of one.
package struct CollectionFolder: Sendable {
    package let url: URL

    package init(_ url: URL) { self.url = url }

    package var settings: URL { url.appendingPathComponent(CollectionSettings.fileName) }
    package var stimuli: URL { url.appendingPathComponent("stimuli") }
    package var participants: URL { url.appendingPathComponent("participants") }
    package var manifest: URL { url.appendingPathComponent("manifest.csv") }
    package var recordedManifest: URL { url.appendingPathComponent("recorded.csv") }
    package var fieldwork: URL { url.appendingPathComponent("fieldwork.json") }
    /// Where the study's record is when it is not this folder (`StudyRecord`).
    package var record: URL { url.appendingPathComponent("record.json") }

    /// The folder of one participant; `id` must pass `CollectionSettings.isParticipantID` (checked by the caller before
    /// any path is made from it).
    package func participant(_ id: String) -> URL { participants.appendingPathComponent(id) }

    package func session(_ id: String) -> URL { participant(id).appendingPathComponent("session.json") }

    /// The name of one participant's recording of a stimulus in the manifest, relative to the folder; its
    /// result files are this name plus `.jsonl`, `.csv`, `.events.csv`, `.summary.json`.
    package static func recordingName(participant: String, stimulus: String) -> String {
        "participants/\(participant)/\(stimulus)"
    }

    /// One participant's result files for one stimulus.
    package func files(participant: String, stimulus: String) -> OutputFiles {
        Self.files(
            ofRecording: url.appendingPathComponent(Self.recordingName(participant: participant, stimulus: stimulus))
                .path)
    }

    /// The result files beside a recording name (`<name>.jsonl`, …).
    package static func files(ofRecording path: String) -> OutputFiles {
        OutputFiles(
            jsonl: path + ".jsonl", csv: path + ".csv", events: path + ".events.csv", summary: path + ".summary.json")
    }

    package func webcam(_ id: String) -> URL { participant(id).appendingPathComponent("recording.webm") }

    /// Whether `folder` is a collected study (it holds `settings.json`).
    package static func isCollected(_ folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(CollectionSettings.fileName).path)
    }

    /// Every participant's session, read from their folders (a folder whose session cannot be read is left out,
    /// with the reason in `problems`).
    package func sessions() -> (sessions: [ParticipantSession], problems: [String]) {
        var sessions: [ParticipantSession] = []
        var problems: [String] = []
        var names: [String] = []
        // No folder yet is a study nobody has joined; a folder that cannot be listed is said.
        if FileManager.default.fileExists(atPath: participants.path) {
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: participants.path)
            } catch {
                problems.append("\(participants.path) cannot be listed: \(error)")
            }
        }
        for name in names.sorted() where CollectionSettings.isParticipantID(name) {
            let file = session(name)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            do {
                sessions.append(try JSONDecoder().decode(ParticipantSession.self, from: Data(contentsOf: file)))
            } catch {
                problems.append("\(file.path): \(error)")
            }
        }
        return (sessions, problems)
    }

    /// Writes `session` in its participant's folder (made when missing), atomically.
    /// - Throws: `.ioFailure` naming the file.
    package func write(_ session: ParticipantSession) throws {
        let folder = participant(session.participant)
        let made = !FileManager.default.fileExists(atPath: folder.path)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw MienError(.ioFailure, "cannot create the participant's folder", input: folder.path)
        }
        do {
            try Self.writeAtomically(try Self.encoder.encode(session), to: self.session(session.participant).path)
        } catch {
            // A first session that cannot be written leaves no folder behind (a consent on a full disk).
            if made { try? FileManager.default.removeItem(at: folder) }
            throw error
        }
    }

    /// Writes `manifest.csv` (and `recorded.csv` when any recording is complete) from the sessions: one row per
    /// participant and stimulus with frames measured, onset 0 (the frames carry stimulus time), the stimulus's
    /// duration, the group, the participant's state and the share of the stimulus measured (`mien study`
    /// excludes a row measured for less than the study's minimum and labels an incomplete viewer's), and what the
    /// page recorded of the viewing (`ViewingFigures`).
    /// - Throws: `.ioFailure` naming the file.
    package func writeManifests(_ sessions: [ParticipantSession], settings: CollectionSettings) throws {
        let (live, recorded) = Self.manifests(sessions, settings: settings)
        try Self.writeAtomically(Data(live.utf8), to: manifest.path)
        if let recorded { try Self.writeAtomically(Data(recorded.utf8), to: recordedManifest.path) }
    }

    /// The text of `manifest.csv`, and of `recorded.csv` when any recording is complete (`writeManifests`).
    package static func manifests(_ sessions: [ParticipantSession], settings: CollectionSettings) -> (
        live: String, recorded: String?
    ) {
        // The declared attributes' columns come last, and only when the study declares some.
        let attributes = (settings.attributes ?? []).map(\.name)
        var live =
            "recording,participant,stimulus,onset,duration,group,status,measured,exposures,"
            + (ViewingFigures.columns + attributes.map(PanelAttribute.column)).joined(separator: ",") + "\n"
        var recorded = live
        var anyRecorded = false
        for session in sessions.sorted(by: { $0.participant < $1.participant }) {
            for stimulus in settings.stimuli {
                guard let progress = session.stimuli[stimulus.name], progress.frames > 0 else { continue }
                let name = recordingName(participant: session.participant, stimulus: stimulus.name)
                let duration = number(stimulus.duration)
                // Empty where the page recorded nothing of the viewing.
                // Summed over every exposure (issue 95 item 2: a replay's clean figures hid the first's hidden tab).
                let viewing =
                    session.exposureFigures(of: stimulus.name, duration: stimulus.duration)?.cells
                    ?? Array(repeating: "", count: ViewingFigures.columns.count)
                let tail =
                    "\(duration),\(session.group ?? ""),\(session.state.rawValue),\(number(progress.coverage)),"
                    + "\(session.exposures(of: stimulus.name)),"
                    + (viewing + attributes.map { ResultTable.quoted(session.attributes?[$0] ?? "") }).joined(
                        separator: ",")
                live += "\(name),\(session.participant),\(stimulus.name),0,\(tail)\n"
                if session.recordingComplete, let onset = progress.recordingOnset {
                    anyRecorded = true
                    recorded +=
                        "participants/\(session.participant)/recording.webm,\(session.participant),\(stimulus.name),\(number(onset)),\(tail)\n"
                }
            }
        }
        return (live, anyRecorded ? recorded : nil)
    }

    static func number(_ value: Double) -> String { String(format: "%.3f", value) }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }()

    /// Writes `data` to `path` under a temporary name and renames it into place.
    /// - Throws: `.ioFailure` naming `path`.
    package static func writeAtomically(_ data: Data, to path: String) throws {
        let file = try AtomicFile(path: path)
        try file.write(data)
        try file.commit()
    }
}
