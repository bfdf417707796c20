package import Foundation
import Mien

/// What a participant's page sends in a request's body, decoded where it arrives.
///
/// Every value a client sends is range-checked where it arrives, here or in the one place that takes it
/// (`ViewingLog` for viewing messages, `StudyQuestions.Question.answer` for answers, `LiveFrameMessage` for frame
/// stamps), so nothing later (a conversion to an integer, a table's cell) meets a value it cannot hold (issue 94: a
/// timing of 1e19 crashed the server). `ParticipantMessageFuzz` feeds these decoders and what follows them.
package enum ParticipantMessage {
    /// `POST /studies/{name}/sessions`.
    package struct Consent: Decodable, Sendable {
        package var participant: String?
        package var group: String?
        /// The link's `gs=`: the group's signature (`GroupLink`).
        package var groupSignature: String?
        /// What the panel's link said of the participant (`&age=25-34`): kept only as the study declared it.
        package var attributes: [String: String]?
        package var agreed: Bool
    }

    /// `POST /studies/{name}/declines`.
    package struct Decline: Decodable, Sendable {
        package var participant: String?
        package var group: String?
        package var groupSignature: String?
        package init() {}
    }

    /// `POST /studies/{name}/screenout`.
    package struct Screenout: Decodable, Sendable {
        package var reason: String
    }

    /// `POST /studies/{name}/answers`: one page of the study's questions.
    package struct AnswersPage: Decodable, Sendable {
        package var answers: [String: StudyAnswer.Given]
        /// Whose answers the page thinks they are: refused when not the token's.
        package var participant: String?
    }

    /// `POST /studies/{name}/recording/complete`: each stimulus's start in the webcam recording.
    package struct RecordingOnsets: Decodable, Sendable {
        package var onsets: [String: Double]

        /// The latest onset taken, seconds (a recording lasts a session, never a day).
        package static let maximumOnset = 86_400.0

        /// Whether every onset is a time within a recording.
        package var inRange: Bool { onsets.values.allSatisfy { (0...Self.maximumOnset).contains($0) } }
    }

    /// `body` decoded as `type`; nil when it is not one.
    package static func decode<Message: Decodable>(_ type: Message.Type, from body: Data) -> Message? {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            return nil  // the route answers 400 saying what it takes
        }
    }
}
