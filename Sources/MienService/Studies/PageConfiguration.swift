import Mien
import MienStudies

/// What the participant page needs to know of its study: nothing about anyone's data.
struct PageConfiguration: Encodable {
    struct Stimulus: Encodable {
        var name: String
        var url: String
        var duration: Double
        /// Width over height of the picture (the page hints a phone held upright to turn for a wide one).
        var aspect: Double?
    }
    var study: String
    var stimuli: [Stimulus]
    var groups: [String]
    var consent: String
    var frameRate: Double
    var maximumFrameSide: Int
    var record: Bool
    var framing: CollectionSettings.Framing
    /// Seconds into a stimulus after which its Skip button shows; nil: none.
    var skippableAfter: Double?
    /// What the page asks after a stimulus or at the end; nil: nothing.
    var questions: StudyQuestions?
    var researcher: CollectionSettings.Researcher
    /// The link's parameters the page passes on with the consent (`PanelAttribute`): the study's declared attributes.
    var attributes: [String]
    /// The panel's screen-out and over-quota links for the page's dead ends when the server cannot be asked
    /// (declined, no camera, no face; full): made by the server in the panel's conventions, with
    /// `participantPlaceholder` and `reasonPlaceholder` where the page puts the participant's ID (or drops the
    /// parameter when it has none) and the reason.
    var exits: [String: String]
    var participantPlaceholder = Self.participantPlaceholder
    var reasonPlaceholder = Self.reasonPlaceholder
    /// Share of each stimulus that must be measured, and attempts allowed at one.
    var minimumShare: Double
    var attemptsPerStimulus: Int
    /// Minutes within which a participant who left may come back.
    var reentryMinutes: Double

    init(_ study: CollectedStudy) {
        self.study = study.name
        stimuli = study.settings.stimuli.map {
            Stimulus(
                name: $0.name, url: "/studies/\(study.name)/stimuli/\($0.file)", duration: $0.duration,
                aspect: $0.aspect)
        }
        groups = study.settings.groups
        consent = study.settings.consent
        frameRate = study.settings.frameRate
        maximumFrameSide = study.settings.maximumFrameSide
        record = study.settings.record
        framing = study.settings.framing
        skippableAfter = study.settings.skippableAfter
        questions = study.settings.questions
        researcher = study.settings.researcher
        attributes = (study.settings.attributes ?? []).map(\.name)
        var exits: [String: String] = [:]
        for exit in [PanelConventions.Exit.screenout, .overquota] {
            exits[exit.rawValue] = study.settings.exitLink(
                exit, participant: Self.participantPlaceholder, reason: Self.reasonPlaceholder)
        }
        self.exits = exits
        minimumShare = study.settings.fieldwork.minimumShare
        attemptsPerStimulus = study.settings.fieldwork.attemptsPerStimulus
        reentryMinutes = study.settings.fieldwork.reentryMinutes
    }

    /// Words no panel's link carries, so the page finds where the ID and the reason go (letters only: a URL
    /// keeps them as they are).
    static let participantPlaceholder = "MIENPARTICIPANTID"
    static let reasonPlaceholder = "MIENREASON"
}
