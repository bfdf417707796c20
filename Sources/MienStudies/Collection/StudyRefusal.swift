/// Why fieldwork's decisions (admission, attempts, answers, endings) refuse what a participant's page asked:
/// a domain value with no protocol in it.
///
/// The service maps a refusal's `kind` to its HTTP status in one place (`ServiceRefusal.init(_:)`), and a socket to
/// its close code; `code` is the stable word clients read and `message` the sentence a person does.
package struct StudyRefusal: Error, Sendable, Equatable {
    /// What kind of refusal it is, which decides how a protocol says it.
    package enum Kind: Sendable, Equatable {
        /// The participant (their token or ID) is not one the study holds.
        case unknownParticipant
        /// What was asked for does not exist for them (a stimulus not theirs, questions a study does not ask).
        case notFound
        /// What they sent is not valid (an unknown question, an answer out of its scale).
        case invalid
        /// Their session's state does not allow it now (ended, already watched, another page streaming).
        case conflict
        /// The study is closed to them (all the participants it needs).
        case closed
    }

    package var kind: Kind
    package var code: String
    package var message: String

    package init(_ kind: Kind, code: String, message: String) {
        (self.kind, self.code, self.message) = (kind, code, message)
    }

    /// A token or ID the ledger does not hold.
    package static let noSuchParticipant = StudyRefusal(
        .unknownParticipant, code: "unauthorized", message: "no such participant")

    /// The study (or the participant's group) has all the participants it needs: the page sends them to the panel's
    /// over-quota link.
    package static let studyFull = StudyRefusal(
        .closed, code: "studyFull", message: "this study has all the participants it needs")

    /// The one answer to a consent with a known ID, whatever its state.
    package static let cannotTakePart = StudyRefusal(
        .conflict, code: "cannotTakePart", message: "this participant ID cannot take part in this study (again)")

    /// Another page of the same participant holds the stimulus socket.
    package static let alreadyStreaming = StudyRefusal(
        .conflict, code: "alreadyStreaming", message: "another page of this participant is sending frames")

    /// A stimulus asked for before this page's framing check passed.
    package static let notFramed = StudyRefusal(
        .conflict, code: "notFramed",
        message: "check your position first: a stimulus starts after the framing check has passed on this page")

    /// A session that is no longer started (complete, left, screened out), optionally naming its state.
    package static func sessionEnded(_ state: String? = nil) -> StudyRefusal {
        StudyRefusal(
            .conflict, code: "sessionEnded", message: "this session has ended\(state.map { " (\($0))" } ?? "")")
    }
}
