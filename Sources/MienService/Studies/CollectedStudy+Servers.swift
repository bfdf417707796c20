import Foundation
import Logging
import Mien

/// Several servers on one study (a database store): a participant's socket is held by one server at a time, a
/// page that comes back through another server takes it over, and the participants of a server that stopped
/// beating are released and marked incomplete by the others.
extension CollectedStudy {
    /// Asks the server holding the participant's socket, if another, to close it, and waits (10 s at most) until
    /// it has recorded what it measured; after that the socket is taken anyway.
    func takeOverElsewhere(_ id: String) async {
        let here = store.server
        do {
            let asked = try await store.transact { ledger -> Bool in
                guard var holder = ledger.holder(of: id), holder.server != here else { return false }
                holder.replacedBy = here
                ledger.sockets[id] = holder
                return true
            }
            guard asked else { return }
            let clock = ContinuousClock()
            let end = clock.now + .seconds(10)
            while clock.now < end {
                try await Task.sleep(for: .milliseconds(200))
                try await store.refresh()
                if store.current().holder(of: id) == nil { return }
            }
            Self.logger.error("study \(name): a participant's socket on another server did not close in 10 s; taken")
            _ = try await store.transact { $0.sockets.removeValue(forKey: id) }
        } catch {
            Self.logger.error("study \(name): a participant's socket on another server cannot be taken over: \(error)")
        }
    }

    /// Brings this server's view up to what other servers changed (a dashboard shows every participant); a store
    /// that cannot be read is logged and the view as it was is shown.
    func refreshed() async {
        do { try await store.refresh() } catch { Self.logger.error("study \(name): \(error)") }
    }

    /// Releases a socket that never started (nothing measured, nothing else to record).
    func release(_ id: String, _ socket: UUID) async {
        let failure = await store.apply { ledger in
            if ledger.sockets[id]?.socket == socket { ledger.sockets.removeValue(forKey: id) }
        }.failure
        if let failure { Self.logger.error("study \(name): a socket cannot be released: \(failure)") }
    }

    /// What each server does every quarter of the lease: closes its sockets another server took over, and marks
    /// incomplete the participants whose socket was on a server that stopped beating (killed, its node lost),
    /// unless their page has already come back through a live server.
    func upkeep() async {
        do {
            try await store.refresh()
        } catch {
            Self.logger.error("study \(name): \(error)")
            return
        }
        // Erased through another server: what this server holds of them goes too (its copy of the folder, or the
        // shared folder when the erasing server has its own).
        for id in store.takeErased() {
            do {
                try await removeFiles(of: id)
                Self.logger.info("study \(name): an erased participant's files removed here too")
            } catch {
                Self.logger.error("study \(name): \(error)")
            }
        }
        let ledger = store.current()
        for (id, socket) in local.withLock({ $0.open }) {
            // A socket this moment opened may not be in the store yet.
            guard clock().timeIntervalSince(socket.opened) > 2 else { continue }
            let holder = ledger.sockets[id]
            if holder?.socket != socket.id || holder?.replacedBy != nil { socket.close(.replaced) }
        }
        guard let live = ledger.liveServers, ledger.sockets.values.contains(where: { !live.contains($0.server) })
        else { return }
        let now = Self.timestamp(clock())
        do {
            let orphaned = try await store.transact { ledger -> [ParticipantSession] in
                var orphaned: [ParticipantSession] = []
                // Without the servers' heartbeats read, every server counts as live.
                guard let live = ledger.liveServers else { return [] }
                for (id, holder) in ledger.sockets where !live.contains(holder.server) {
                    ledger.sockets.removeValue(forKey: id)
                    // Their page came back through a live server, which is taking the socket over: they go on.
                    if let taker = holder.replacedBy, live.contains(taker) { continue }
                    guard var session = ledger.sessions[id], session.state == .started else { continue }
                    session.state = .incomplete
                    session.reasonCode = .serverStopped
                    session.reason = "the server serving them stopped during \(Self.stepWords(session.step))"
                    session.finished = now
                    ledger.sessions[id] = session
                    orphaned.append(session)
                }
                return orphaned
            }
            for session in orphaned {
                Self.logger.warning(
                    "study \(name): participant #\(session.number): the server serving them stopped beating; incomplete (they may come back within the re-entry window)"
                )
                await recordCutAttempt(of: session)
            }
        } catch {
            Self.logger.error("study \(name): participants of a stopped server cannot be marked yet: \(error)")
        }
    }

    /// What the store holds of a released participant's cut attempt becomes the stimulus's progress.
    ///
    /// The stopped server never recorded it, while the database kept its frames as they were measured: without
    /// this the dashboard said 0 % measured and the attempt set aside when they come back said nothing was.
    private func recordCutAttempt(of session: ParticipantSession) async {
        guard let stimulus = settings.stimuli.first(where: { $0.name == session.step }),
            let attempt = session.attemptsBegun?[stimulus.name]
        else { return }
        do {
            guard
                let lines = try await store.keptResults(
                    participant: session.participant, stimulus: stimulus.name, attempt: attempt), !lines.isEmpty
            else { return }
            var tally = ProgressTally(duration: stimulus.duration, span: settings.fieldwork.frameSpan)
            try JSONLinesReader.forEachResult(in: lines, source: "\(stimulus.name) attempt \(attempt)") { result in
                tally.received(at: result.timestamp)
                tally.add(result)
            }
            let progress = tally.progress
            let said =
                "the server serving them stopped during \(stimulus.name) (\(Self.percent(progress.coverage)) measured)"
            let recorded = try await store.transact { ledger -> Bool in
                // Only while nothing newer happened to them (they came back, or another server recorded it).
                guard var current = ledger.sessions[session.participant], current.state == .incomplete,
                    current.reasonCode == .serverStopped, current.attemptsBegun?[stimulus.name] == attempt,
                    current.stimuli[stimulus.name] == nil
                else { return false }
                current.stimuli[stimulus.name] = progress
                current.reason = said
                ledger.sessions[session.participant] = current
                return true
            }
            if recorded {
                Self.logger.info(
                    "study \(name): participant #\(session.number): \(progress.frames) frames of \(stimulus.name) attempt \(attempt) were kept before their server stopped (\(Self.percent(progress.coverage)) measured)"
                )
            }
        } catch {
            Self.logger.error(
                "study \(name): participant #\(session.number): what their stopped server measured cannot be read: \(error)"
            )
        }
    }
}
