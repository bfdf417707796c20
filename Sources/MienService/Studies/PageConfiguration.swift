import Mien

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
    var researcher: CollectionSettings.Researcher
    /// The panel's screen-out link and code, for the page's dead ends (declined, no camera, no face, full).
    var screenoutURL: String?
    var screenoutCode: String?
    /// The panel's conventions (`generic`, `prolific`): which parameter carries the screen-out code.
    var panel: String
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
        researcher = study.settings.researcher
        let panel = study.settings.fieldwork.panelConventions
        self.panel = panel.rawValue
        screenoutURL =
            study.settings.fieldwork.screenoutURL ?? (panel == .prolific ? PanelConventions.prolificCompletion : nil)
        screenoutCode = study.settings.fieldwork.screenoutCode
        minimumShare = study.settings.fieldwork.minimumShare
        attemptsPerStimulus = study.settings.fieldwork.attemptsPerStimulus
        reentryMinutes = study.settings.fieldwork.reentryMinutes
    }
}
