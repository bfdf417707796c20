import ArgumentParser
import Foundation
import Mien
import MienCore
import MienService
import MienStudies

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
        help:
            "Groups (conditions), comma-separated; the server balances them, or a link's group= with the signature (gs=) this command prints assigns one."
    )
    var groups: String?

    @Flag(
        help:
            "Take a link's group= as given, unsigned (anyone who edits the link chooses their group; for panels that add the group themselves)."
    )
    var groupsFromLink = false

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

    @Option(
        help:
            "Seconds into each stimulus after which the page shows a Skip button, as a pre-roll does; mien study then draws who stayed (retention). Default: no Skip button."
    )
    var skippableAfter: Double?

    @Option(
        help:
            "A questions file: Likert scales, choices and free text, each after a named stimulus or at the end (docs/studies.md, \"Questions\"; a sample in Samples/)."
    )
    var questions: String?

    @Option(
        help: ArgumentHelp(
            "Moments of a stimulus mien study draws on every chart: [STIMULUS:]NAME=SECONDS[,SECONDS...] (brand=12.4,27); repeat for more. mien study DIR --marks replaces them after collection.",
            valueName: "marks"))
    var marks: [String] = []

    @Option(
        help: ArgumentHelp(
            "What a group is, in words, for mien study's page: GROUP=TEXT (A=\"Women 18-34\"); repeat for each.",
            valueName: "label"))
    var groupLabel: [String] = []

    @Option(
        help: ArgumentHelp(
            "What the panel passes of each participant in the link (&age=25-34), with the values kept: NAME=VALUE,VALUE,... (age=18-24,25-34,35-44,45+); repeat for each. The consent names them; mien study profiles the sample by them and --segment-by splits it.",
            valueName: "attribute"))
    var attribute: [String] = []

    @Option(help: "Participants who may start watching (default: no cap; consents that never start do not count).")
    var maxParticipants: Int?

    @OptionGroup(title: "Panel")
    var panel: StudyPanelOptions

    @Option(help: "Who runs the study, shown on the participant page and in the consent text.")
    var researcher: String?

    @Option(help: "Where participants ask questions or for their data to be deleted (an e-mail address or URL).")
    var contact: String?

    @Option(help: "How long participants' data is kept, in words for the consent (\"until 31 December 2028\").")
    var retention: String?

    @Option(help: "The lowest frame rate a busy server may ask pages for before anyone waits in its queue.")
    var minRate = CollectionSettings.Fieldwork().minimumFrameRate

    @Option(help: "Share (0...1) of each stimulus that must be measured for a completion code.")
    var minShare = CollectionSettings.Fieldwork().minimumShare

    @Option(
        help:
            "Share (0...1) of each stimulus that must be measured with a face in view for a completion code (default: \(CollectionSettings.Fieldwork.defaultMinimumFaceShare)); frames of a blank or covered camera earn none."
    )
    var minFaceShare: Double?

    @Option(help: "Minutes within which a participant who left (reload, lost network, restart) may come back.")
    var reentryMinutes = CollectionSettings.Fieldwork().reentryMinutes

    @Option(
        help:
            "Also register the study in this PostgreSQL database (postgres://USER:PASSWORD@HOST:PORT/DATABASE; default: $MIEN_STUDIES_URL), for mien serve --store: a server whose copy of the folder differs is refused."
    )
    var store: String?

    @Option(help: "A file whose first line is the --store URL (keeps its password off the command line).")
    var storeFile: String?

    @Option(help: "Consents one address may make at once (then --consents-per-minute; past it, HTTP 429).")
    var consentBurst = CollectionSettings.Fieldwork().consentBurst

    @Option(help: "Consents one address may make per minute after its burst.")
    var consentsPerMinute = CollectionSettings.Fieldwork().consentsPerMinute

    @Flag(help: "Do not estimate or store perceived gender, age and glasses.")
    var noAppearance = false

    @Flag(help: "Do not store the 34 facial points of each face.")
    var noLandmarks = false

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
        var given: String?
        if let consent {
            let text: String
            do {
                text = try String(contentsOfFile: consent, encoding: .utf8)
            } catch {
                throw ValidationError(
                    "--consent \(consent): cannot be read as UTF-8 text (\(error.localizedDescription))")
            }
            guard !text.isEmpty else { throw ValidationError("--consent \(consent): is empty") }
            given = text
        }
        var stimuli: [CollectionSettings.Stimulus] = []
        var aspects: [Double?] = []
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
                if let width = source.info.width, let height = source.info.height, height > 0 {
                    aspects.append((Double(width) / Double(height) * 1000).rounded() / 1000)
                } else {
                    aspects.append(nil)
                }
            } catch let error as MienError {
                throw ValidationError("--stimulus \(path): \(error.message)")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("--stimulus \(path): cannot be read")
            }
            stimuli.append(
                .init(
                    name: name, file: file, sha256: ModelStore.sha256(data),
                    duration: (duration * 1000).rounded() / 1000, aspect: aspects.last ?? nil))
            copies.append((path, study.stimuli.appendingPathComponent(file)))
        }
        let asked = try askedQuestions(stimuli: stimuli.map(\.name))
        let marked = try markedMoments(stimuli: stimuli.map(\.name))
        var settings: CollectionSettings
        do {
            var fieldwork = CollectionSettings.Fieldwork()
            try panel.apply(to: &fieldwork)
            fieldwork.minimumFrameRate = minRate
            fieldwork.minimumShare = minShare
            fieldwork.minimumFaceShare = minFaceShare
            fieldwork.reentryMinutes = reentryMinutes
            fieldwork.consentBurst = consentBurst
            fieldwork.consentsPerMinute = consentsPerMinute
            if groups != nil {
                if groupsFromLink {
                    fieldwork.groupsFromLink = true
                } else {
                    fieldwork.groupLinkKey = GroupLink.newKey()
                }
            }
            settings = try CollectionSettings(
                stimuli: stimuli,
                groups: groups.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? [],
                order: order, consent: given ?? "", record: record, completionURL: completionUrl,
                frameRate: rate, maximumParticipants: maxParticipants, skippableAfter: skippableAfter,
                questions: asked, fieldwork: fieldwork,
                stored: .init(appearance: !noAppearance, landmarks: !noLandmarks),
                researcher: .init(name: researcher, contact: contact, retention: retention))
            if !marked.isEmpty { settings.marks = marked }
            settings.groupLabels = try groupLabels()
            let attributes = try attribute.map(PanelAttribute.init(parsing:))
            if !attributes.isEmpty { settings.attributes = attributes }
            try settings.validate()
            if given == nil {
                settings.consent = CollectionDisclosure.consent(settings)
            }
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
        let consentText = settings.consent
        do {
            try FileManager.default.createDirectory(at: study.stimuli, withIntermediateDirectories: true)
            for copy in copies where !FileManager.default.fileExists(atPath: copy.to.path) {
                try FileManager.default.copyItem(atPath: copy.from, toPath: copy.to.path)
            }
            try CollectionFolder.writeAtomically(
                Data(consentText.utf8), to: study.url.appendingPathComponent("consent.md").path)
            try CollectionFolder.writeAtomically(
                Data(CollectionDisclosure.storedNote(settings).utf8),
                to: study.url.appendingPathComponent("STORED.md").path)
            try CollectionFolder.writeAtomically(try settings.encoded(), to: study.settings.path)
        } catch {
            Diagnostics.report(MienError(.ioFailure, "cannot write the study folder: \(error)", input: study.url.path))
            throw ExitStatus.inputFailed
        }
        Secret.warnIfPasswordInArguments(self.store, option: "--store", command: "mien study init")
        let store = try Secret.store.resolve(store, file: storeFile)
        if let store {
            // This command is synchronous (on the main thread); registering waits on the network, on Swift's
            // concurrency pool, through the command line's one bridge.
            let folder = study.url
            do {
                try Blocking.run { try await MienService.registerStudy(folder: folder, store: store) }
            } catch {
                // Not registered: the folder just written is not a study either, so the command can be run again.
                do { try FileManager.default.removeItem(at: study.url) } catch {
                    Console.error("mien study init: \(study.url.path) could not be removed: \(error)\n")
                }
                Diagnostics.report(error)
                throw ExitStatus.inputFailed
            }
        }
        if retention == nil {
            Console.error(
                "mien study init: warning: no --retention: consent.md says [RETENTION: ...]; say how long the data is kept (edit consent.md and settings.json's researcher.retention)\n"
            )
        }
        if contact == nil {
            Console.error(
                "mien study init: warning: no --contact: consent.md and STORED.md say [CONTACT: ...]; participants must be able to reach you to have their data deleted (edit both, and settings.json's researcher.contact)\n"
            )
        }
        printSummary(settings, study: study, registered: store != nil)
    }
}
