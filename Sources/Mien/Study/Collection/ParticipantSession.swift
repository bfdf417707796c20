import Foundation

/// One participant of a collected study, as the study folder keeps it: `participants/<id>/session.json`.
///
/// Holds no picture and nothing the participant typed but their ID: where they are in the flow, which group
/// and order they were given, and per stimulus how much of it was measured. The token the server issued at
/// consent is kept only as its SHA-256, so the file cannot be used to write as them.
package struct ParticipantSession: Sendable, Codable, Equatable {
    /// Where a participant is in the flow.
    package enum State: String, Sendable, Codable {
        /// Agreed; camera, framing check or a stimulus under way.
        case started
        /// Watched every stimulus to its end.
        case complete
        /// Left before the end (tab closed, network lost, reload, server restarted); what was measured is kept.
        case incomplete
    }

    /// What was measured of one stimulus.
    package struct StimulusProgress: Sendable, Codable, Equatable {
        /// Frames the page sent (and the server accepted).
        package var frames = 0
        /// Of those, frames analysed (the rest were dropped when analysis fell behind).
        package var analysed = 0
        /// Analysed frames with a face.
        package var withFace = 0
        /// The last frame's stimulus time, in seconds.
        package var lastTime: Double?
        /// Share of the stimulus's duration the frames span, 0...1 (from its start to the last frame plus one
        /// frame interval).
        package var coverage = 0.0
        /// Whether the page said the stimulus played to its end.
        package var ended = false
        /// Where in the webcam recording the stimulus started, in seconds (with `record`).
        package var recordingOnset: Double?

        package init() {}
    }

    package var participant: String
    package var group: String?
    /// The stimuli in the order this participant watches them.
    package var order: [String]
    package var state: State
    /// ISO 8601 times of consent and of the end (complete or left).
    package var started: String
    package var finished: String?
    /// SHA-256 (hex) of the participant's token.
    package var tokenDigest: String
    package var stimuli: [String: StimulusProgress]
    /// Framing checks that ended without passing (the page closed or gave up while the face was not framed).
    package var framingFailures: Int
    /// Why the participant is incomplete, in words (`nil` while started or when complete).
    package var reason: String?
    /// The webcam recording's bytes received so far, and whether the upload finished (with `record`).
    package var recordingBytes: Int
    package var recordingComplete: Bool

    package init(participant: String, group: String?, order: [String], tokenDigest: String, started: String) {
        self.participant = participant
        self.group = group
        self.order = order
        state = .started
        self.started = started
        self.tokenDigest = tokenDigest
        stimuli = [:]
        framingFailures = 0
        recordingBytes = 0
        recordingComplete = false
    }

    /// The share of the study's stimuli time this participant was measured for, 0...1.
    package func coverage(of settings: CollectionSettings) -> Double {
        let total = settings.stimuli.reduce(0) { $0 + $1.duration }
        let covered = settings.stimuli.reduce(0) { $0 + (stimuli[$1.name]?.coverage ?? 0) * $1.duration }
        return total > 0 ? covered / total : 0
    }
}
