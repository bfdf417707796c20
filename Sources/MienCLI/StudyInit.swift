import ArgumentParser
import Foundation
import Mien

/// `mien study init`: a study folder to collect a panel from a link (`mien serve --studies`).
///
/// Writes the settings (`settings.json`), copies the stimuli into `stimuli/` with their SHA-256 and duration,
/// the consent text into `consent.md` and what the folder will hold into `STORED.md`; refuses a folder that is already a study.
struct StudyInit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make a study folder that mien serve --studies serves as a link for participants.",
        discussion: """
            Participants open http://HOST/studies/NAME/ (NAME: the folder's name), agree, pass a framing check and \
            watch each stimulus full screen while the page sends camera frames stamped with the stimulus's time; \
            Mien analyses and drops them, and writes each participant's results and a manifest row into DIR. \
            `mien study DIR --output OUT` aggregates them without analysing anything again. docs/studies.md, \
            "Collect a panel".
            """)

    @Argument(help: "The study folder (created; its name is the study's name in the link).")
    var folder: String

    @Option(help: "A stimulus video (repeat for several); its name in the study is its file name without extension.")
    var stimulus: [String] = []

    @Option(
        help: "Groups (conditions), comma-separated; a link's group= assigns one, otherwise the server balances them.")
    var groups: String?

    @Option(help: "How each participant's stimuli are ordered: fixed or counterbalanced (rotated per participant).")
    var order: CollectionSettings.Order = .fixed

    @Option(help: "A text file participants must agree to (default: a template saying what is stored; adapt it).")
    var consent: String?

    @Flag(help: "Also record each participant's webcam and upload it afterwards (kept in the study folder).")
    var record = false

    @Option(help: "Where participants are sent when done (participant= and code= are appended).")
    var completionUrl: String?

    @Option(help: "Camera frames per second the page sends during a stimulus.")
    var rate = 10.0

    @Option(help: "Participants who may start (default: no cap).")
    var maxParticipants: Int?

    func validate() throws {
        if stimulus.isEmpty { throw ValidationError("give at least one --stimulus video") }
        let name = URL(fileURLWithPath: folder).standardized.lastPathComponent
        if !CollectionSettings.isName(name) {
            throw ValidationError(
                "the folder's name '\(name)' is the study's name in its link: use 1-64 letters, digits, '_' or '-'")
        }
        if CollectionFolder.isCollected(URL(fileURLWithPath: folder)) {
            throw ValidationError("\(folder) is already a study (it has \(CollectionSettings.fileName))")
        }
    }

    func run() throws {
        let study = CollectionFolder(URL(fileURLWithPath: folder).standardized)
        let consentText: String
        if let consent {
            let text: String
            do {
                text = try String(contentsOfFile: consent, encoding: .utf8)
            } catch {
                throw ValidationError(
                    "--consent \(consent): cannot be read as UTF-8 text (\(error.localizedDescription))")
            }
            guard !text.isEmpty else { throw ValidationError("--consent \(consent): is empty") }
            consentText = text
        } else {
            consentText = Self.consentTemplate(record: record)
        }
        var stimuli: [CollectionSettings.Stimulus] = []
        var copies: [(from: String, to: URL)] = []
        for path in stimulus {
            let file = URL(fileURLWithPath: path).lastPathComponent
            let name = String(
                URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent.map {
                    $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "-"
                }.prefix(64))
            let duration: Double
            do {
                let source = try InputSource.open(path: path)
                guard let seconds = source.info.duration, source.info.kind == .video else {
                    throw ValidationError("--stimulus \(path): not a video whose duration can be read")
                }
                duration = seconds
            } catch let error as MienError {
                throw ValidationError("--stimulus \(path): \(error.message)")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("--stimulus \(path): cannot be read")
            }
            stimuli.append(
                .init(
                    name: name, file: file, sha256: ModelStore.sha256(data),
                    duration: (duration * 1000).rounded() / 1000))
            copies.append((path, study.stimuli.appendingPathComponent(file)))
        }
        let settings: CollectionSettings
        do {
            settings = try CollectionSettings(
                stimuli: stimuli,
                groups: groups.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? [],
                order: order, consent: consentText, record: record, completionURL: completionUrl, frameRate: rate,
                maximumParticipants: maxParticipants)
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
        do {
            try FileManager.default.createDirectory(at: study.stimuli, withIntermediateDirectories: true)
            for copy in copies where !FileManager.default.fileExists(atPath: copy.to.path) {
                try FileManager.default.copyItem(atPath: copy.from, toPath: copy.to.path)
            }
            try CollectionFolder.writeAtomically(
                Data(consentText.utf8), to: study.url.appendingPathComponent("consent.md").path)
            try CollectionFolder.writeAtomically(
                Data(Self.storedNote(settings).utf8), to: study.url.appendingPathComponent("STORED.md").path)
            try CollectionFolder.writeAtomically(try settings.encoded(), to: study.settings.path)
        } catch {
            Diagnostics.report(MienError(.ioFailure, "cannot write the study folder: \(error)", input: study.url.path))
            throw ExitStatus.inputFailed
        }
        let total = settings.stimuli.reduce(0) { $0 + $1.duration }
        print(
            """
            study \(study.url.lastPathComponent): \(settings.stimuli.count) stimul\(settings.stimuli.count == 1 ? "us" : "i") (\(String(format: "%.1f", total)) s), \
            \(settings.groups.isEmpty ? "one group" : "groups \(settings.groups.joined(separator: ", "))"), \(settings.order.rawValue) order, \
            \(settings.record ? "webcam recorded" : "numbers only, no video kept"), \(settings.frameRate) frames/s
            serve it:  mien serve --studies \(study.url.deletingLastPathComponent().path) --token TOKEN
            the link:  http://HOST:PORT/studies/\(study.url.lastPathComponent)/?participant=ID\(settings.groups.isEmpty ? "" : "[&group=\(settings.groups[0])]")
            dashboard: http://HOST:PORT/studies/\(study.url.lastPathComponent)/dashboard?token=TOKEN
            """)
    }

    /// What the study folder will hold, for whoever audits it (`STORED.md`).
    static func storedNote(_ settings: CollectionSettings) -> String {
        """
        # What this study stores

        Written by `mien study init`; `mien serve --studies` keeps to it.

        - `settings.json`, `consent.md`, `stimuli/`: the study as it was set up (stimuli checked by SHA-256).
        - `participants/ID/session.json`: per participant, the ID they came with, their group and order of stimuli, \
        when they started and finished, per stimulus how many camera frames arrived, were analysed and showed a face, \
        and the share of the stimulus measured. Their session token is kept only as its SHA-256.
        - `participants/ID/STIMULUS.jsonl`, `.csv`, `.events.csv`, `.summary.json`: the measurements of each frame \
        (face position, head pose, expression, emotion and other scores), as `mien analyze` writes them.
        - `manifest.csv`: one row per participant and stimulus measured.
        \(settings.record ? "- `participants/ID/recording.webm`: the participant's webcam during the stimuli (--record), and `recorded.csv` listing each with the stimuli's onsets in it." : "- No picture or video of any participant: each camera frame is analysed in memory and dropped.")

        Deleting a participant (the dashboard's button, or `DELETE /studies/NAME/participants/ID` with the service \
        token) removes their folder and their manifest rows.

        """
    }

    /// The consent text a study gets when none is given: what is measured and kept, to adapt.
    static func consentTemplate(record: Bool) -> String {
        """
        # Taking part

        You will watch a short video while your webcam is on. Software on the study's server (Mien) measures your \
        facial expressions from the camera's pictures as they arrive: where your face is, how it is turned, and \
        scores of expressions and emotions, several times a second.

        \(record ? "Your webcam is also recorded while you watch, and the recording is uploaded to the study's server after the video, where it is kept for the study." : "No picture or video of you is kept: each picture is measured and then deleted. Only the numbers are kept.")

        The numbers are stored under the participant ID you came with, not your name. You may stop at any time by \
        closing this page; what was measured until then is kept unless you ask the researchers to delete it, \
        which they can do for every file of yours.

        By choosing "I agree" you consent to taking part on these terms.
        """
    }
}

extension CollectionSettings.Order: ExpressibleByArgument {}
