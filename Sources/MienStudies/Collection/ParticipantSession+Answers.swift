package import Foundation
import Mien

/// Answers to the study's questions, as decisions over the session value: `CollectedStudy.answer` runs one inside a
/// store transaction; the tests run it on a value (`StudyAnswersTests`).
extension ParticipantSession {
    /// Keeps one page of answers: every question the study asks after one stimulus (or at the end).
    ///
    /// Sent together, null for one left unanswered. All or nothing: a page with one wrong answer keeps none of it.
    ///
    /// A page is due once its stimulus was watched to its end and measured enough (the end's, once every stimulus
    /// was). The same page sent again (a page whose answer was lost) changes nothing; other answers to a page
    /// already kept are refused.
    /// - Returns: whether anything was kept (false: the same answers again).
    /// - Throws: `StudyRefusal`: `noQuestions` (not found); `sessionEnded` (completed, left, screened out),
    ///   `notYetAsked`, `alreadyAnswered` (conflicts); `unknownQuestion`, `invalidAnswer` naming the question and
    ///   why (invalid).
    package mutating func answer(_ given: [String: StudyAnswer.Given], settings: CollectionSettings, now: Date) throws
        -> Bool
    {
        func invalid(_ code: String, _ message: String) -> StudyRefusal {
            StudyRefusal(.invalid, code: code, message: message)
        }
        guard let questions = settings.questions else {
            throw StudyRefusal(.notFound, code: "noQuestions", message: "this study asks no questions")
        }
        guard state == .started else {
            throw StudyRefusal.sessionEnded()
        }
        let unknown = given.keys.filter { questions.question($0) == nil }.sorted()
        guard unknown.isEmpty else {
            throw invalid(
                "unknownQuestion",
                "no such question: \(unknown.prefix(5).map { String($0.prefix(64)) }.joined(separator: ", "))\(unknown.count > 5 ? " and \(unknown.count - 5) more" : "")"
            )
        }
        let pages = Set(given.keys.compactMap { questions.question($0) }.map { $0.after ?? "" })
        guard let page = pages.first, pages.count == 1 else {
            throw invalid(
                "invalidAnswer",
                pages.isEmpty ? "no answer was sent" : "a page of answers holds the questions after one stimulus")
        }
        let after = page.isEmpty ? nil : page
        let block = questions.block(after: after)
        let left = block.filter { given[$0.id] == nil }.map(\.id)
        guard left.isEmpty else {
            throw invalid(
                "invalidAnswer",
                "a page is sent whole, null for a question left unanswered: missing \(left.joined(separator: ", "))")
        }
        let due = after.map { stimuli[$0]?.counts(settings.fieldwork) == true } ?? measuredEnough(settings.fieldwork)
        guard due else {
            throw StudyRefusal(
                .conflict, code: "notYetAsked",
                message: after.map { "these questions follow \($0), which has not been watched yet" }
                    ?? "these questions come after every video")
        }
        let stamp = SessionTime.timestamp(now)
        let sent = try block.map { question in
            do {
                return try question.answer(given[question.id] ?? .none, answered: stamp)
            } catch let error as MienError {
                throw invalid("invalidAnswer", error.message)
            }
        }
        let kept = block.compactMap { answer($0.id) }
        if !kept.isEmpty {
            guard kept.count == sent.count, zip(kept, sent).allSatisfy({ $0.sameAnswer(as: $1) }) else {
                throw StudyRefusal(
                    .conflict, code: "alreadyAnswered", message: "these questions have been answered already")
            }
            return false
        }
        answers = (answers ?? []) + sent
        lastSeen = stamp
        return true
    }

    /// The study's questions this participant has not answered (their pages not sent), in the file's order.
    package func unanswered(_ settings: CollectionSettings) -> [StudyQuestions.Question] {
        (settings.questions?.questions ?? []).filter { answer($0.id) == nil }
    }
}
