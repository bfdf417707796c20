package import Foundation
import Mien

/// A study collected from a link (`mien study init`, served by `mien serve --studies`): its settings, in the
/// study folder's `settings.json`.
///
/// Validated at creation and again when read, so a hand-edited file with a bad value is refused with the
/// field named rather than served.
package struct CollectionSettings: Sendable, Codable, Equatable {
    /// The settings file's name in a study folder.
    package static let fileName = "settings.json"

    /// One stimulus the participants watch.
    package struct Stimulus: Sendable, Codable, Equatable {
        /// Its name in the study (the manifest's `stimulus`): letters, digits, `_` and `-`.
        package var name: String
        /// The file, in the study folder's `stimuli/`.
        package var file: String
        /// SHA-256 of the file, checked when the study is served.
        package var sha256: String
        /// Its length in seconds (the container's frame count over its rate).
        package var duration: Double
        /// Its picture's width over its height (nil in folders made before it was recorded).
        package var aspect: Double?

        package init(name: String, file: String, sha256: String, duration: Double, aspect: Double? = nil) {
            self.name = name
            self.file = file
            self.sha256 = sha256
            self.duration = duration
            self.aspect = aspect
        }
    }

    /// How each participant's stimuli are ordered.
    package enum Order: String, Sendable, Codable, CaseIterable {
        /// As listed, for everyone.
        case fixed
        /// Rotated by the participant's number (a Latin square's rows, one per stimulus), so every stimulus is
        /// seen first equally often.
        case counterbalanced
    }

    /// The framing check a participant passes before the first stimulus.
    ///
    /// Affdex's guidance: a face of at least 30 x 30 px, mean brightness above 30/255, within about 25 degrees
    /// of frontal.
    package struct Framing: Sendable, Codable, Equatable {
        /// The face box's shorter side, in camera pixels.
        package var minimumFacePixels: Double = 30
        /// Mean brightness of the face box, on `FaceQuality.brightness`'s 0-100 scale (30/255 = 11.8).
        package var minimumBrightness: Double = 11.8
        /// Head yaw and pitch, in degrees from frontal.
        package var maximumAngle: Double = 25
        /// Seconds the check must pass without a break.
        package var seconds: Double = 2
        /// Seconds one try may take before the page says the face could not be framed and offers another.
        package var timeoutSeconds: Double = 60
        /// Tries before the participant is screened out ("no face").
        package var attempts: Int = 3

        package init() {}

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let standard = Framing()
            minimumFacePixels =
                try container.decodeIfPresent(Double.self, forKey: .minimumFacePixels) ?? standard.minimumFacePixels
            minimumBrightness =
                try container.decodeIfPresent(Double.self, forKey: .minimumBrightness) ?? standard.minimumBrightness
            maximumAngle = try container.decodeIfPresent(Double.self, forKey: .maximumAngle) ?? standard.maximumAngle
            seconds = try container.decodeIfPresent(Double.self, forKey: .seconds) ?? standard.seconds
            timeoutSeconds =
                try container.decodeIfPresent(Double.self, forKey: .timeoutSeconds) ?? standard.timeoutSeconds
            attempts = try container.decodeIfPresent(Int.self, forKey: .attempts) ?? standard.attempts
        }
    }

    package var stimuli: [Stimulus]
    /// The groups (conditions); empty: one panel.
    ///
    /// A link's `group=` parameter assigns one, otherwise the server balances them.
    package var groups: [String]
    package var order: Order
    /// The consent text (Markdown-like plain text, shown as paragraphs).
    package var consent: String
    /// Whether the page also records the webcam and uploads it afterwards (`--record`).
    package var record: Bool
    /// Where a participant is sent when done, with `participant=<id>` (and their code) appended; nil: none.
    package var completionURL: String?
    /// Camera frames per second the page sends during a stimulus.
    package var frameRate: Double
    /// Participants who may start watching (a consent that never reached a stimulus does not count); nil: no
    /// cap.
    package var maximumParticipants: Int?
    /// The longest side of a camera frame the page sends, in pixels (the server refuses larger ones).
    package var maximumFrameSide: Int
    /// The largest webcam recording accepted, in bytes (with `record`).
    package var maximumRecordingBytes: Int
    package var framing: Framing
    /// Seconds into each stimulus after which the page shows a Skip button (as a pre-roll does), and the viewer
    /// may leave it there; nil: no Skip button (`--skippable-after`).
    package var skippableAfter: Double?
    /// What the page asks after a stimulus or at the end (`--questions`); nil: nothing.
    package var questions: StudyQuestions?
    /// Moments of the stimuli `mien study` draws on every chart (`--marks`; its own `--marks` replaces them).
    package var marks: [StudyMark]?
    /// What each group is, in words, for `mien study`'s page (`--group-label`; its own `--group-label` goes over).
    package var groupLabels: [String: String]?
    /// What the panel passes of each participant in the link, with the values kept (`--attribute`); nil: nothing.
    package var attributes: [PanelAttribute]?
    package var fieldwork: Fieldwork
    package var stored: Stored
    package var researcher: Researcher

    /// - Throws: `.invalidOptions` naming the field that is not valid.
    package init(
        stimuli: [Stimulus], groups: [String] = [], order: Order = .fixed, consent: String, record: Bool = false,
        completionURL: String? = nil, frameRate: Double = 10, maximumParticipants: Int? = nil,
        maximumFrameSide: Int = 1280, maximumRecordingBytes: Int = 512 << 20, framing: Framing = Framing(),
        skippableAfter: Double? = nil, questions: StudyQuestions? = nil, fieldwork: Fieldwork = Fieldwork(),
        stored: Stored = Stored(), researcher: Researcher = Researcher()
    ) throws {
        self.stimuli = stimuli
        self.groups = groups
        self.order = order
        self.consent = consent
        self.record = record
        self.completionURL = completionURL
        self.frameRate = frameRate
        self.maximumParticipants = maximumParticipants
        self.maximumFrameSide = maximumFrameSide
        self.maximumRecordingBytes = maximumRecordingBytes
        self.framing = framing
        self.skippableAfter = skippableAfter
        self.questions = questions
        self.fieldwork = fieldwork
        self.stored = stored
        self.researcher = researcher
        try validate()
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        stimuli = try container.decode([Stimulus].self, forKey: .stimuli)
        groups = try container.decodeIfPresent([String].self, forKey: .groups) ?? []
        order = try container.decodeIfPresent(Order.self, forKey: .order) ?? .fixed
        consent = try container.decode(String.self, forKey: .consent)
        record = try container.decodeIfPresent(Bool.self, forKey: .record) ?? false
        completionURL = try container.decodeIfPresent(String.self, forKey: .completionURL)
        frameRate = try container.decodeIfPresent(Double.self, forKey: .frameRate) ?? 10
        maximumParticipants = try container.decodeIfPresent(Int.self, forKey: .maximumParticipants)
        maximumFrameSide = try container.decodeIfPresent(Int.self, forKey: .maximumFrameSide) ?? 1280
        maximumRecordingBytes = try container.decodeIfPresent(Int.self, forKey: .maximumRecordingBytes) ?? 512 << 20
        framing = try container.decodeIfPresent(Framing.self, forKey: .framing) ?? Framing()
        skippableAfter = try container.decodeIfPresent(Double.self, forKey: .skippableAfter)
        questions = try container.decodeIfPresent(StudyQuestions.self, forKey: .questions)
        marks = try container.decodeIfPresent([StudyMark].self, forKey: .marks)
        groupLabels = try container.decodeIfPresent([String: String].self, forKey: .groupLabels)
        attributes = try container.decodeIfPresent([PanelAttribute].self, forKey: .attributes)
        fieldwork = try container.decodeIfPresent(Fieldwork.self, forKey: .fieldwork) ?? Fieldwork()
        stored = try container.decodeIfPresent(Stored.self, forKey: .stored) ?? Stored()
        researcher = try container.decodeIfPresent(Researcher.self, forKey: .researcher) ?? Researcher()
        try validate()
    }

    /// Whether `name` can name a stimulus, a group or a participant: 1 to 64 letters, digits, `_` or `-`.
    ///
    /// Checked before any path is made from a name a client sent: no `/`, `.` or `..` can reach the file
    /// system.
    package static func isName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 95
                    || byte == 45
            }
    }

    package func validate() throws {
        func refuse(_ message: String) -> MienError { MienError(.invalidOptions, message) }
        guard !stimuli.isEmpty else { throw refuse("a study needs at least one stimulus") }
        for stimulus in stimuli {
            guard Self.isName(stimulus.name) else {
                throw refuse("stimulus name '\(stimulus.name)': use 1-64 letters, digits, '_' or '-'")
            }
            guard stimulus.duration > 0, stimulus.duration.isFinite else {
                throw refuse("stimulus \(stimulus.name): its duration must be positive, got \(stimulus.duration)")
            }
            guard !stimulus.file.contains("/"), stimulus.file != "..", !stimulus.file.hasPrefix(".") else {
                throw refuse("stimulus \(stimulus.name): its file must be a name in stimuli/, got '\(stimulus.file)'")
            }
        }
        guard Set(stimuli.map(\.name)).count == stimuli.count else { throw refuse("two stimuli share a name") }
        for group in groups where !Self.isName(group) {
            throw refuse("group '\(group)': use 1-64 letters, digits, '_' or '-'")
        }
        guard Set(groups).count == groups.count else { throw refuse("a group is listed twice") }
        guard frameRate > 0, frameRate <= 30 else {
            throw refuse("frameRate must be within (0, 30] frames per second, got \(frameRate)")
        }
        if let maximumParticipants, maximumParticipants < 1 {
            throw refuse("maximumParticipants must be at least 1, got \(maximumParticipants)")
        }
        guard maximumFrameSide >= 64 else { throw refuse("maximumFrameSide must be at least 64 pixels") }
        guard maximumRecordingBytes > 0 else { throw refuse("maximumRecordingBytes must be positive") }
        if let completionURL { try Self.checkURL(completionURL, name: "the completion URL") }
        guard framing.seconds >= 0, framing.maximumAngle > 0, framing.minimumFacePixels >= 0,
            framing.timeoutSeconds > framing.seconds, framing.attempts >= 1
        else {
            throw refuse("the framing check's limits must be positive (and its timeout longer than its seconds)")
        }
        if let skippableAfter, !(skippableAfter > 0 && skippableAfter.isFinite) {
            throw refuse("skippableAfter must be a positive number of seconds, got \(skippableAfter)")
        }
        try questions?.validate(stimuli: stimuli.map(\.name))
        if let unknown = groupLabels?.keys.first(where: { !groups.contains($0) }) {
            throw refuse("a group label names \(unknown), which is not a group of the study")
        }
        if let attributes {
            for attribute in attributes { try attribute.validate() }
            guard attributes.count <= PanelAttribute.maximumCount else {
                throw refuse("at most \(PanelAttribute.maximumCount) attributes")
            }
            if Set(attributes.map(\.name)).count != attributes.count { throw refuse("an attribute is declared twice") }
        }
        if let marks {
            do {
                _ = try StudyMark.checked(
                    marks,
                    durations: Dictionary(stimuli.map { ($0.name, $0.duration) }, uniquingKeysWith: { max($0, $1) }))
            } catch let error as MienError {
                throw refuse(error.message)
            }
        }
        try fieldwork.validate(groups: groups, frameRate: frameRate)
        try fieldwork.panelConventions.validate(
            completionURL: completionURL, screenoutURL: fieldwork.screenoutURL, screenoutCode: fieldwork.screenoutCode)
    }

    /// Reads and validates a study folder's settings.
    /// - Throws: `.notFound` when the folder has no settings file; `.invalidOptions` or `.corruptData` naming
    ///   it when it cannot be used.
    package static func read(folder: URL) throws -> CollectionSettings {
        let file = folder.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw MienError(
                .notFound, "not a study folder (no \(fileName); make one with mien study init)", input: folder.path)
        }
        do {
            return try JSONDecoder().decode(CollectionSettings.self, from: Data(contentsOf: file))
        } catch let error as MienError {
            throw MienError(error.code, error.message, input: file.path)
        } catch {
            throw MienError(.corruptData, "the study's settings cannot be read: \(error)", input: file.path)
        }
    }

    /// The settings as the file holds them (sorted keys, indented).
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
