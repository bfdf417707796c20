import Foundation
import HTTPTypes
import Logging
import Mien
import MienStudies

/// Consent and coming back: who may take part, in which group and order (the ways out are in
/// `CollectedStudy+ScreenOut.swift`).
extension CollectedStudy {
    /// What consent (or coming back) gives the page: the participant's ID, token, group, order of stimuli, and
    /// where they are.
    struct Admission: Codable, Sendable {
        var participant: String
        var token: String
        var group: String?
        var order: [String]
        /// The stimuli watched to their end and measured enough: the page goes on with the first one not here.
        var watched: [String]
        /// The questions whose pages were sent (`--questions`): the page asks only the others.
        var answered: [String]
        /// `started`, or `complete` for a participant who comes back after finishing (the page shows their code).
        var state: String
        /// Their completion code, once complete.
        var code: String?
    }

    /// Admits a participant who agreed: a new session with its token, group and order.
    ///
    /// An ID already known is refused whatever its session's state (`StudyLedger.consent`): a participant who
    /// comes back (a reload, a lost network, a closed tab, a server restart, within the re-entry window) does so with
    /// the token their page kept (`resume`), never with their ID alone.
    /// - Parameters:
    ///   - participant: the ID the link carried (nil: one is made, unless the study requires one).
    ///   - group: the group the link carried (nil: the group with the fewest); taken only with its `signature`
    ///     (the link's `gs=`) when the study signs its links (`Fieldwork.linkedGroup`), else the server chooses.
    /// - Throws: `ServiceRefusal`: 400 for an ID or group that is not valid (or none when one is required), 409
    ///   `cannotTakePart` for an ID already known (started, complete, left, screened out or erased: one answer,
    ///   byte for byte, for all), 403 `studyFull` (its cap or its targets met) or `groupFull` (the link's group
    ///   reached its target, `Placement`), 503 when the session cannot be saved.
    func admit(
        participant: String?, group: String?, signature: String? = nil, attributes: [String: String]? = nil
    ) async throws -> Admission {
        guard participant != nil || !settings.fieldwork.requireParticipantID else {
            throw ServiceRefusal(
                status: .badRequest, code: "invalidParticipant",
                message: "this study is taken from the link your panel gave you (it carries your participant ID)")
        }
        let id =
            participant ?? "p-"
            + String(UUID().uuidString.lowercased().prefix(13)).replacingOccurrences(of: "-", with: "")
        guard CollectionSettings.isParticipantID(id) else {
            throw ServiceRefusal(
                status: .badRequest, code: "invalidParticipant",
                message: "a participant ID is 1-64 letters, digits, '_', '-' or '*'")
        }
        if let group, !settings.groups.contains(group) {
            throw ServiceRefusal(
                status: .badRequest, code: "invalidGroup",
                message: settings.groups.isEmpty
                    ? "this study has no groups" : "unknown group (known: \(settings.groups.joined(separator: ", ")))")
        }
        let linked = settings.fieldwork.linkedGroup(group, signature: signature)
        if group != nil, linked == nil {
            Self.tally.note(
                "\(name) unsigned group", "study \(name): a link's group had no valid signature; the server chose one")
        }
        let group = linked
        await expireConsents()
        let token = Self.token()
        let now = clock()
        let here = store.server
        let open = Set(local.withLock { $0.open.keys })
        let digest = Self.digest(token)
        let outcome = try await kept {
            try await store.transact { [name, settings] ledger in
                ledger.consent(
                    id, token: digest, linked: group, open: open, server: here, study: name, settings: settings,
                    now: now, attributes: attributes)
            }
        }
        switch outcome {
        case .refused(let why):
            Self.tally.note("\(name) refused \(why)", "study \(name): a consent for a known ID was refused (\(why))")
            throw Self.cannotTakePart
        case .full(let maximum):
            Self.tally.note(
                "\(name) full", "study \(name): a consent was refused: the study is full (\(maximum) watching)")
            throw Self.studyFull
        case .targetsMet:
            Self.tally.note(
                "\(name) targets met", "study \(name): a consent was refused: the study's targets are met")
            throw Self.studyFull
        case .groupFull(let full):
            Self.tally.note(
                "\(name) group \(full) full",
                "study \(name): a consent was refused: group \(full) has reached its target")
            throw ServiceRefusal(
                status: .forbidden, code: "groupFull",
                message: "this study has all the participants it needs from this link")
        case .agreed(let session):
            Self.logger.info(
                "study \(name): participant #\(session.number) agreed\(session.group.map { " (group \($0))" } ?? "")")
            return admissionOf(session, token: token)
        }
    }

    /// The study (or the participant's group) has all the participants it needs: `StudyRefusal.studyFull`.
    static let studyFull = StudyRefusal.studyFull

    /// The one answer to a consent with a known ID, whatever its state: `StudyRefusal.cannotTakePart`.
    static let cannotTakePart = StudyRefusal.cannotTakePart

    /// Comes back with the token a page kept (a reload): the session as it stands.
    ///
    /// A participant who left within the re-entry window goes on; a complete one is told their code again.
    /// - Throws: `ServiceRefusal` 401 for an unknown token (a consent that expired), 409 `cannotTakePart` when
    ///   the window passed or they were screened out.
    func resume(token: String?) async throws -> Admission {
        let id = try await participant(token: token)
        let now = clock()
        let here = store.server
        // Whether the page takes over, and the state it came back from (logged once the change is kept: a resume
        // refused for want of the store is not one that happened).
        let (takesOver, previous) = try await kept {
            try await store.transact { [settings] ledger in
                try ledger.resume(id, server: here, settings: settings, now: now)
            }
        }
        guard let session = session(id) else {
            throw ServiceRefusal(status: .unauthorized, code: "unauthorized", message: "no such participant")
        }
        if let previous {
            Self.logger.info("study \(name): participant #\(session.number) came back (\(previous.rawValue) before)")
        }
        if takesOver { local.withLock { $0.open[id] }?.close(.replaced) }
        return admissionOf(session, token: token ?? "")
    }

    private func admissionOf(_ session: ParticipantSession, token: String) -> Admission {
        Admission(
            participant: session.participant, token: token, group: session.group, order: session.order,
            watched: session.order.filter { name in
                session.stimuli[name]?.counts(settings.fieldwork) ?? false
            },
            answered: (session.answers ?? []).map(\.question),
            state: session.state.rawValue, code: session.state == .complete ? session.code : nil)
    }

    /// 32 random bytes, hex.
    private static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }
}
