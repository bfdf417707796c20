import Foundation
import Logging
import Mien
import MienStudies

/// Consents that never opened a socket expire, freeing their IDs.
extension CollectedStudy {
    /// Forgets consents that opened no socket within `consentExpiryMinutes`: their IDs are free again (a probe
    /// with someone's ID, or a page never used, does not lock its owner out).
    ///
    /// Looks at most once every `expirySweepSeconds` (a sixth of the expiry when that is shorter; consents expire in minutes; looking at every consent made a
    /// consent's cost grow with the consents waiting), and only through the consents still waiting for a camera.
    func expireConsents() async {
        let now = clock()
        let limit = settings.fieldwork.consentExpiryMinutes * 60
        let every = min(Self.expirySweepSeconds, limit / 6)
        let due = local.withLock { state -> Bool in
            if let last = state.expirySwept, now.timeIntervalSince(last) < every, now >= last {
                return false
            }
            state.expirySwept = now
            return true
        }
        guard due else { return }
        let open = Set(local.withLock { $0.open.keys })
        let cutoff = now.timeIntervalSinceReferenceDate - limit
        // Most calls find none: the store is not asked to change anything then.
        guard store.current().sessions.waiting(seenBefore: cutoff).contains(where: { !open.contains($0) }) else {
            return
        }
        do {
            let expired = try await store.transact { ledger -> [ParticipantSession] in
                let gone = ledger.sessions.waiting(seenBefore: cutoff).filter { !open.contains($0) }
                    .compactMap { ledger.sessions[$0] }
                for session in gone { ledger.sessions.removeValue(forKey: session.participant) }
                return gone
            }
            for session in expired {
                try await removeFiles(of: session.participant)
                Self.logger.info("study \(name): participant #\(session.number)'s consent expired (no camera in time)")
            }
        } catch {
            Self.logger.error("study \(name): expired consents cannot be removed from \(store.description): \(error)")
        }
    }

    /// How often, at most, consents are looked through for expired ones (seconds).
    static let expirySweepSeconds: TimeInterval = 10
}
