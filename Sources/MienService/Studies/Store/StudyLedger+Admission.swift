import Foundation
import HTTPTypes
import Mien

/// Consent, coming back and where a new participant goes, as decisions over the ledger: functions of the ledger, the
/// study's settings and the time, and nothing else (no socket, file or clock). `CollectedStudy` runs them inside one
/// store transaction (`admit`, `resume`); the tests run them on a value (`StudyLedgerAdmissionTests`).
extension StudyLedger {
    /// What a consent decided.
    enum Consent: Sendable, Equatable {
        case agreed(ParticipantSession)
        case cameBack(ParticipantSession, ParticipantSession.State)
        /// A known ID that cannot take part, and why (in the researcher's words).
        case refused(String)
        /// The study is full (its cap).
        case full(Int)
        /// The study's targets are met (`targetsClose`).
        case targetsMet
        /// The link's group has reached its target (`targetsClose`).
        case groupFull(String)
        /// A page of the session is live: the consent would take it over.
        case live
    }

    /// What the targets say of a new consent.
    enum Placement: Sendable, Equatable {
        /// Into this group (nil: a study without groups).
        case group(String?)
        /// The group the link gave has reached its target.
        case groupFull(String)
        /// The whole study's target is reached, or every group's.
        case studyFull
    }

    /// Decides a consent for `id` and keeps it in the ledger: an erased ID refused; a known one coming back (a new
    /// page: a new token, its framing again) unless it cannot or a page of theirs is live; else a new session,
    /// numbered next, placed by `place`, its order rotated by its number, unless the study is full.
    /// - Parameters:
    ///   - token: the SHA-256 of the token the consent gives.
    ///   - linked: the group the link gave (signed, or taken as given), if any.
    ///   - open: the participants with a socket open on this server (the ledger's holders add every other's).
    ///   - server: this server, as the ledger's socket holders name it.
    mutating func consent(
        _ id: String, token: String, linked: String?, open: Set<String>, server: String, study: String,
        settings: CollectionSettings, now: Date, attributes: [String: String]? = nil
    ) -> Consent {
        if counts.erasedIDs.contains(FieldworkCounts.erasedDigest(study: study, participant: id)) {
            refusedIDs["erased", default: 0] += 1
            return .refused("erased")
        }
        if var session = sessions[id] {
            if let why = session.cannotComeBack(at: now, fieldwork: settings.fieldwork) {
                refusedIDs[why, default: 0] += 1
                return .refused(why)
            }
            // An ID is not a credential: a page of theirs that is live (a socket open here or on a live server) is
            // never replaced by a consent; its token can come back (`resume`). Once that page is gone (closed, or
            // silent for the idle limit), the consent goes on.
            if session.state == .started, open.contains(id) || holder(of: id) != nil { return .live }
            // The same person again (or whoever has their ID: the old page's token stops working).
            let previous = session.state
            session.tokenDigest = token
            // A new token is a new page: it passes its own framing check before a stimulus.
            session.framed = nil
            session.reenter(from: previous, now: now, newPage: true)
            sessions[id] = session
            giveUpSocket(of: id, to: server)
            return .cameBack(session, previous)
        }
        if let maximum = settings.maximumParticipants, sessions.watching >= maximum {
            counts.turnedAwayFull += 1
            return .full(maximum)
        }
        // A socket open here, or on another server of the study.
        let chosen: String?
        switch place(linked: linked, open: open.union(sockets.keys), settings: settings, now: now) {
        case .group(let placed):
            chosen = placed
        case .groupFull(let full):
            counts.turnedAwayGroupFull[full, default: 0] += 1
            return .groupFull(full)
        case .studyFull:
            counts.turnedAwayFull += 1
            return .targetsMet
        }
        let number = nextNumber
        let names = settings.stimuli.map(\.name)
        let shift = (number - 1) % max(names.count, 1)
        let order = settings.order == .fixed || names.isEmpty ? names : Array(names[shift...] + names[..<shift])
        var session = ParticipantSession(
            participant: id, number: number, group: chosen, order: order, tokenDigest: token,
            started: CollectedStudy.timestamp(now))
        // What the panel's link said of them, as the study declared it (a participant who comes back keeps the first).
        session.attributes = PanelAttribute.kept(attributes, declared: settings.attributes)
        nextNumber += 1
        sessions[id] = session
        return .agreed(session)
    }

    /// Decides a page's return with its token (a reload, a lost connection) to `id`'s session and keeps it: a
    /// complete session as it is; else taken up again unless it cannot come back, and a socket another server holds
    /// for them marked to be given up to `server` (closed there, or released without marking them should that server
    /// have died meanwhile).
    /// - Returns: whether the page takes over, and the state it came back from when that was not `started`.
    /// - Throws: `ServiceRefusal` 401 for an ID the ledger does not hold, 409 `cannotTakePart` when it cannot
    ///   come back.
    mutating func resume(_ id: String, server: String, settings: CollectionSettings, now: Date) throws -> (
        takesOver: Bool, from: ParticipantSession.State?
    ) {
        guard var session = sessions[id] else {
            throw ServiceRefusal(status: .unauthorized, code: "unauthorized", message: "no such participant")
        }
        if session.state == .complete { return (false, nil) }
        if let why = session.cannotComeBack(at: now, fieldwork: settings.fieldwork) {
            throw ServiceRefusal(
                status: .conflict, code: "cannotTakePart",
                message: "this participant ID cannot take part in this study (again): \(why)")
        }
        let previous = session.state
        session.reenter(from: previous, now: now, newPage: false)
        sessions[id] = session
        giveUpSocket(of: id, to: server)
        return (true, previous == .started ? nil : previous)
    }

    /// Marks a socket another server holds for `id` to be given up to `server`: closed there by its upkeep, or, should
    /// that server have stopped beating, released without marking them incomplete.
    ///
    /// Whether its server is live or not: a page back through a live server is the evidence that they did not go
    /// with a server that stopped (before, a page that came back after its server's heartbeat had lapsed found no
    /// live holder to mark, and another server's upkeep then marked it `serverStopped` between its `resume` and
    /// its stimulus, which met `sessionEnded`: fleet-faults seed 7, four pages).
    private mutating func giveUpSocket(of id: String, to server: String) {
        guard var holder = sockets[id], holder.server != server, holder.replacedBy == nil else { return }
        holder.replacedBy = server
        sockets[id] = holder
    }

    /// Places a new participant.
    ///
    /// Who counts toward a target is who counts for balance (`SessionTable.balanceCounts`): complete; watching
    /// and not abandoned (a sign within `abandonMinutes`, or a socket open); getting ready since a consent that
    /// has not expired. Counting those still taking part, not only those complete, keeps a burst from
    /// overshooting a target that is paid for; someone who leaves or is screened out frees their place again.
    /// - Parameters:
    ///   - linked: the group the link gave (signed, or taken as given), if any.
    ///   - open: the participants with a socket open here or on another server of the study.
    mutating func place(linked: String?, open: Set<String>, settings: CollectionSettings, now: Date) -> Placement {
        let fieldwork = settings.fieldwork
        let closes = fieldwork.targetsClose == true && !fieldwork.targets.isEmpty
        guard closes || (linked == nil && !settings.groups.isEmpty) else { return .group(linked) }
        let time = now.timeIntervalSinceReferenceDate
        let counts = sessions.balanceCounts(
            readySince: time - fieldwork.consentExpiryMinutes * 60,
            watchingSince: time - fieldwork.abandonMinutes * 60, open: open)
        func isOpen(_ group: String) -> Bool {
            guard closes, let target = fieldwork.targets[group] else { return true }
            return counts[group, default: 0] < target
        }
        if closes, let whole = fieldwork.targets[StudyManifest.wholePanel], counts.values.reduce(0, +) >= whole {
            return .studyFull
        }
        if let linked { return isOpen(linked) ? .group(linked) : .groupFull(linked) }
        guard !settings.groups.isEmpty else { return .group(nil) }
        // The first listed on a tie.
        let chosen = settings.groups.filter(isOpen).min { counts[$0, default: 0] < counts[$1, default: 0] }
        return chosen.map { .group($0) } ?? .studyFull
    }
}

extension ParticipantSession {
    /// Why a known session cannot take part again, in the researcher's words; nil when it may.
    func cannotComeBack(at now: Date, fieldwork: CollectionSettings.Fieldwork) -> String? {
        switch state {
        case .complete: return "already complete"
        case .screenedOut: return "screened out (\(reasonCode?.rawValue ?? "no reason"))"
        case .started: return nil
        case .incomplete:
            let left = CollectedStudy.date(finished ?? lastSeen) ?? .distantPast
            let window = fieldwork.reentryMinutes * 60
            return now.timeIntervalSince(left) <= window ? nil : "left more than \(Int(window / 60)) min ago"
        }
    }

    /// Takes the session up again.
    ///
    /// A re-entry is counted whenever the log says "came back": a consent again with the ID (`newPage`, whatever
    /// the state), or a page's token back after the session was marked incomplete; not a reload that finds its
    /// session still started (the dashboard's count and the log agree).
    mutating func reenter(from previous: State, now: Date, newPage: Bool) {
        if previous == .incomplete || newPage { reentries += 1 }
        state = .started
        reason = nil
        reasonCode = nil
        finished = nil
        lastSeen = CollectedStudy.timestamp(now)
    }
}
