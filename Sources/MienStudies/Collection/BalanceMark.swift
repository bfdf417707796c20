import Foundation
import Mien

/// What group balance needs of one session, its times read once when the session is set (parsing them for every
/// session at every consent was most of a consent's cost at 10,000 sessions).
package struct BalanceMark: Sendable, Equatable {
    package enum Kind: Sendable, Hashable, CaseIterable {
        /// Complete: counts always.
        case complete
        /// Consented, and not yet through the framing check: counts for balance (which group a newcomer joins) while
        /// the consent has not expired, never for a target (issue 94: ten bare consents closed a study).
        case consented
        /// Through the framing check, not yet watching: holds a place toward its group's target for
        /// `StudyLedger.framedHold` from the check (`ParticipantSession.framed`).
        case framed
        /// Watching, or left after watching: counts within the abandon window.
        case watching
    }
    package var participant: String
    package var group: String
    package var kind: Kind
    /// When the session was last seen (seconds since the reference date); nil when its time cannot be read.
    package var seen: Double?

    package struct Key: Hashable, Sendable {
        var group: String
        var kind: Kind
    }
    package var key: Key { Key(group: group, kind: kind) }

    /// Nil for a session that never counts (screened out, left before watching, complete below the viewing rules).
    ///
    /// A session without a group counts under `""` (the whole study's target counts every group).
    package init?(_ session: ParticipantSession) {
        participant = session.participant
        group = session.group ?? ""
        switch session.state {
        case .complete:
            // A viewer below the published viewing rules does not fill the quota (unless the study counts everyone).
            guard session.belowQuality == nil else { return nil }
            kind = .complete
            seen = nil
        case .screenedOut:
            return nil
        case .started where session.watchingSince == nil:
            if let framed = session.framed {
                kind = .framed
                seen = SessionTime.date(framed)?.timeIntervalSinceReferenceDate
            } else {
                kind = .consented
                seen = SessionTime.date(session.lastSeen ?? session.started)?.timeIntervalSinceReferenceDate
            }
        case .started, .incomplete:
            guard session.watchingSince != nil else { return nil }
            kind = .watching
            seen = SessionTime.date(session.lastSeen ?? session.finished)?.timeIntervalSinceReferenceDate
        }
    }
}
