package import Foundation
import Mien

/// Consent, coming back and where a new participant goes, as decisions over the ledger: functions of the ledger, the
/// study's settings and the time, and nothing else (no socket, file or clock). `CollectedStudy` runs them inside one
/// store transaction (`admit`, `resume`); the tests run them on a value (`StudyLedgerAdmissionTests`).
extension StudyLedger {
    /// What a consent decided.
    package enum Consent: Sendable, Equatable {
        case agreed(ParticipantSession)
        /// A known ID: it cannot consent again, whatever its state (in the researcher's words, for the log and
        /// the dashboard's count; the participant is answered alike for every state).
        case refused(String)
        /// The study is full (its cap).
        case full(Int)
        /// The study's targets are met (`targetsClose`).
        case targetsMet
        /// The link's group has reached its target (`targetsClose`).
        case groupFull(String)
    }

    /// What the targets say of a new consent.
    package enum Placement: Sendable, Equatable {
        /// Into this group (nil: a study without groups).
        case group(String?)
        /// The group the link gave has reached its target.
        case groupFull(String)
        /// The whole study's target is reached, or every group's.
        case studyFull
    }

    /// Decides a consent for `id` and keeps it in the ledger: a known or erased ID refused; else a new session,
    /// numbered next, placed by `place`, its order rotated by its number, unless the study is full.
    ///
    /// An ID is not a credential (issue 94): whoever has someone's ID must not get their session (what they watched
    /// and answered, their completion code) at any step, socket open or not. A participant who comes back proves they
    /// are the same browser with the token their page kept (`resume`); a consent with a known ID is refused whatever
    /// the session's state (started, complete, left, screened out, erased), in one answer, so the answer tells
    /// nothing of the session either. One participant, one session, one paid code.
    /// - Parameters:
    ///   - token: the SHA-256 of the token the consent gives.
    ///   - linked: the group the link gave (signed, or taken as given), if any.
    ///   - open: the participants with a socket open on this server (the ledger's holders add every other's).
    ///   - server: this server, as the ledger's socket holders name it.
    package mutating func consent(
        _ id: String, token: String, linked: String?, open: Set<String>, server: String, study: String,
        settings: CollectionSettings, now: Date, attributes: [String: String]? = nil
    ) -> Consent {
        if counts.erasedIDs.contains(FieldworkCounts.erasedDigest(study: study, participant: id)) {
            refusedIDs["erased", default: 0] += 1
            return .refused("erased")
        }
        if let session = sessions[id] {
            let why =
                session.cannotComeBack(at: now, fieldwork: settings.fieldwork)
                ?? "in progress, without its page's token"
            refusedIDs[why, default: 0] += 1
            return .refused(why)
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
            started: SessionTime.timestamp(now))
        // What the panel's link said of them, as the study declared it (a participant who comes back keeps the first).
        session.attributes = PanelAttribute.kept(attributes, declared: settings.attributes)
        for name in PanelAttribute.dropped(attributes, declared: settings.attributes) {
            counts.attributesDropped[name, default: 0] += 1
        }
        nextNumber += 1
        sessions[id] = session
        return .agreed(session)
    }

    /// Decides a page's return with its token (a reload, a lost connection) to `id`'s session and keeps it: a
    /// complete session as it is; else taken up again unless it cannot come back, and a socket another server holds
    /// for them marked to be given up to `server` (closed there, or released without marking them should that server
    /// have died meanwhile).
    /// - Returns: whether the page takes over, and the state it came back from when that was not `started`.
    /// - Throws: `StudyRefusal`: `unknownParticipant` for an ID the ledger does not hold, `cannotTakePart` when it cannot
    ///   come back.
    package mutating func resume(_ id: String, server: String, settings: CollectionSettings, now: Date) throws -> (
        takesOver: Bool, from: ParticipantSession.State?
    ) {
        guard var session = sessions[id] else {
            throw StudyRefusal.noSuchParticipant
        }
        if session.state == .complete { return (false, nil) }
        if let why = session.cannotComeBack(at: now, fieldwork: settings.fieldwork) {
            throw StudyRefusal(
                .conflict, code: "cannotTakePart",
                message: "this participant ID cannot take part in this study (again): \(why)")
        }
        let previous = session.state
        session.reenter(from: previous, now: now)
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

    /// How long a participant through the framing check holds a place toward their group's target before they start
    /// watching (5 minutes from the check, a check passed again renewing it): the seconds between the check and
    /// Start watching, with room for a slow page; a page closed after the check frees its place then.
    package static let framedHold: TimeInterval = 5 * 60

    /// Places a new participant.
    ///
    /// Which group: the one the link gave, else the open group with the fewest participants counting for balance
    /// (`SessionTable.balanceCounts`: consents that have not expired included, so a burst is spread evenly).
    /// Whether it is open: the places taken toward its target (`SessionTable.placeCounts`): complete; watching and
    /// not abandoned (a sign within `abandonMinutes`, or a socket open); through the framing check within
    /// `framedHold`. A consent alone takes no place (issue 94: ten bare consents from one address closed a study
    /// with targets for as long as they renewed them); the place is taken at the framing check
    /// (`claimPlace`), and someone who leaves or is screened out frees it again.
    /// - Parameters:
    ///   - linked: the group the link gave (signed, or taken as given), if any.
    ///   - open: the participants with a socket open here or on another server of the study.
    ///   - except: a participant whose own place is not counted (`claimPlace`).
    package mutating func place(
        linked: String?, open: Set<String>, settings: CollectionSettings, now: Date, except: String? = nil
    ) -> Placement {
        let fieldwork = settings.fieldwork
        let closes = fieldwork.targetsClose == true && !fieldwork.targets.isEmpty
        guard closes || (linked == nil && !settings.groups.isEmpty) else { return .group(linked) }
        let time = now.timeIntervalSinceReferenceDate
        let framedSince = time - Self.framedHold
        let watchingSince = time - fieldwork.abandonMinutes * 60
        var taken = sessions.placeCounts(framedSince: framedSince, watchingSince: watchingSince, open: open)
        if let except, let own = sessions[except], let mark = BalanceMark(own), mark.kind != .consented {
            let counted =
                mark.kind == .complete || open.contains(except)
                || (mark.seen ?? -.infinity) >= (mark.kind == .framed ? framedSince : watchingSince)
            if counted { taken[mark.group, default: 0] -= 1 }
        }
        func isOpen(_ group: String) -> Bool {
            guard closes, let target = fieldwork.targets[group] else { return true }
            return taken[group, default: 0] < target
        }
        if closes, let whole = fieldwork.targets[StudyManifest.wholePanel], taken.values.reduce(0, +) >= whole {
            return .studyFull
        }
        if let linked { return isOpen(linked) ? .group(linked) : .groupFull(linked) }
        guard !settings.groups.isEmpty else { return .group(nil) }
        let balance = sessions.balanceCounts(
            readySince: time - fieldwork.consentExpiryMinutes * 60, framedSince: framedSince,
            watchingSince: watchingSince, open: open)
        // The first listed on a tie.
        let chosen = settings.groups.filter(isOpen).min { balance[$0, default: 0] < balance[$1, default: 0] }
        return chosen.map { .group($0) } ?? .studyFull
    }

    /// Whether `id` (not yet watching) has a place toward their group's target, the others' places counted and not
    /// their own: nil when it has (or the study closes no target), else the placement that refuses them.
    ///
    /// Asked when their framing check starts (to tell them before they do it) and when it passes (`claimPlace`: the
    /// first through the check takes the last place); and when they start watching, should their hold have lapsed.
    package mutating func placeRefused(_ id: String, open: Set<String>, settings: CollectionSettings, now: Date)
        -> Placement?
    {
        guard settings.fieldwork.targetsClose == true, !settings.fieldwork.targets.isEmpty,
            let session = sessions[id], session.state == .started, session.watchingSince == nil
        else { return nil }
        let placement = place(
            linked: session.group, open: open.union(sockets.keys), settings: settings, now: now, except: id)
        if case .group = placement { return nil }
        return placement
    }

    /// Screens out `id` as over quota (`studyFull`).
    ///
    /// The last place toward their group's target went before they started watching: counted as turned away, and
    /// sent to the panel's over-quota link.
    package mutating func turnAway(_ id: String, _ placement: Placement, now: Date) {
        guard var session = sessions[id] else { return }
        switch placement {
        case .group: return
        case .groupFull(let group): counts.turnedAwayGroupFull[group, default: 0] += 1
        case .studyFull: counts.turnedAwayFull += 1
        }
        session.state = .screenedOut
        session.reasonCode = .studyFull
        session.reason = "over quota: the last place went before they started watching"
        session.finished = SessionTime.timestamp(now)
        session.framed = nil
        sessions[id] = session
    }
}

extension ParticipantSession {
    /// Why a known session cannot take part again, in the researcher's words; nil when it may.
    package func cannotComeBack(at now: Date, fieldwork: CollectionSettings.Fieldwork) -> String? {
        switch state {
        case .complete: return "already complete"
        case .screenedOut: return "screened out (\(reasonCode?.rawValue ?? "no reason"))"
        case .started: return nil
        case .incomplete:
            let left = SessionTime.date(finished ?? lastSeen) ?? .distantPast
            let window = fieldwork.reentryMinutes * 60
            return now.timeIntervalSince(left) <= window
                ? nil : "left more than \(Int(saturating: window / 60, rounding: .towardZero)) min ago"
        }
    }

    /// Takes the session up again.
    ///
    /// A re-entry is counted whenever the log says "came back": a page's token back after the session was marked
    /// incomplete; not a reload that finds its session still started (the dashboard's count and the log agree).
    package mutating func reenter(from previous: State, now: Date) {
        if previous == .incomplete { reentries += 1 }
        state = .started
        reason = nil
        reasonCode = nil
        finished = nil
        lastSeen = SessionTime.timestamp(now)
    }
}
