import Foundation
import Logging
import Mien
import MienStudies

/// Several servers on one study (a database store): a participant's socket is held by one server at a time, a
/// page that comes back through another server takes it over, and the participants of a server that stopped
/// beating are released and marked incomplete by the others.
extension CollectedStudy {
    /// Asks the server holding the participant's socket, if another, to close it, and waits (10 s at most) until
    /// it has recorded what it measured; after that the socket is taken anyway.
    func takeOverElsewhere(_ id: String) async {
        let here = store.server
        do {
            let held = try await store.transact { ledger -> SocketHolder? in
                guard var holder = ledger.holder(of: id) else { return nil }
                if holder.server != here {
                    holder.replacedBy = here
                    ledger.sockets[id] = holder
                }
                return holder
            }
            guard let held else { return }
            guard held.server != here else {
                // The place passed here already (the page came back through this server, `resume`), unless a socket
                // of theirs is open here: then the place is that socket's, which `takeOverHere` closed.
                local.withLock { if $0.open[id] == nil { $0.reserved[id] = held.socket } }
                return
            }
            let clock = ContinuousClock()
            let end = clock.now + .seconds(10)
            while clock.now < end {
                try await Task.sleep(for: .milliseconds(200))
                try await store.refresh()
                guard let holder = store.current().holder(of: id) else { return }
                if holder.server == here {
                    // The place passed here (`SocketHolder`): kept for this page until it opens its socket.
                    local.withLock { $0.reserved[id] = holder.socket }
                    return
                }
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

    /// The page a place was kept for (`takeOverElsewhere`) has gone or opened its socket: this server's upkeep lets
    /// the place go unless a socket holds it.
    func forgetReservation(_ id: String) {
        local.withLock { _ = $0.reserved.removeValue(forKey: id) }
    }

    /// Releases a socket that never started (nothing measured, nothing else to record).
    func release(_ id: String, _ socket: UUID) async {
        let here = store.server
        let failure = await store.apply { ledger in
            if let holder = ledger.sockets[id], holder.socket == socket, holder.server == here {
                ledger.sockets.removeValue(forKey: id)
            }
        }.failure
        if let failure { Self.logger.error("study \(name): a socket cannot be released: \(failure)") }
    }

    /// What each server does every quarter of the lease: closes its sockets another server took over, and marks
    /// incomplete the participants whose socket was on a server that stopped beating (killed, its node lost),
    /// unless their page has already come back through a live server.
    func upkeep() async {
        // The sockets registered before the store is read: the read shows what their opening changes kept.
        let (open, confirmed) = local.withLock { ($0.open, $0.confirmed) }
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
        let here = store.server
        var seen: Set<UUID> = []
        for (id, socket) in open {
            let holder = ledger.sockets[id]
            if holder?.socket == socket.id, holder?.server == here, holder?.replacedBy == nil {
                seen.insert(socket.id)
                continue
            }
            // A socket the store never showed as theirs may be opening still: its change is kept once the database
            // has taken it, which under load took seconds after the socket was registered here, and this closed
            // such sockets as replaced (`make fleet-check`: a page told `replaced` as it was told `ready`). Only
            // another server's hold, a page back elsewhere or an erasure closes it then.
            if !confirmed.contains(socket.id), ledger.sessions[id] != nil,
                holder == nil || (holder?.server == here && holder?.replacedBy == nil)
            {
                continue
            }
            // Erased through another server: said as an erasure (it was `replaced`, "you went on in another tab").
            socket.close(ledger.sessions[id] == nil ? .erased : .replaced)
        }
        local.withLock { local in
            local.confirmed = local.confirmed.union(seen).filter { id in local.open.values.contains { $0.id == id } }
        }
        await letUnusedPlacesGo(ledger)
        guard let live = ledger.liveServers, ledger.sockets.values.contains(where: { !live.contains($0.server) })
        else { return }
        let now = SessionTime.timestamp(clock())
        do {
            let orphaned = try await store.transact { ledger -> [ParticipantSession] in
                var orphaned: [ParticipantSession] = []
                // Without the servers' heartbeats read, every server counts as live.
                guard let live = ledger.liveServers else { return [] }
                for (id, holder) in ledger.sockets where !live.contains(holder.server) {
                    ledger.sockets.removeValue(forKey: id)
                    // Their page came back through a live server, which is taking the socket over: they go on, and
                    // the place is that server's (should it stop too before their page opens a socket there).
                    if let taker = holder.replacedBy, live.contains(taker) {
                        ledger.sockets[id] = SocketHolder(server: taker, socket: holder.socket)
                        continue
                    }
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

    /// Lets go the places this server holds that no page of its own uses.
    ///
    /// Those the ledger says it holds with neither a socket open here nor a page on its way (`Local.reserved`), when
    /// they were so at the last upkeep too: a page that was kept a place and went, a socket's end the store could not
    /// record. Two rounds, so that a place passed here a moment ago stays for the page about to take it.
    private func letUnusedPlacesGo(_ ledger: StudyLedger) async {
        let here = store.server
        let mine = ledger.sockets.filter { $0.value.server == here }
        let due = local.withLock { local -> [String: UUID] in
            var unbacked: [String: UUID] = [:]
            for (id, holder) in mine where local.open[id]?.id != holder.socket && local.reserved[id] != holder.socket {
                unbacked[id] = holder.socket
            }
            let due = unbacked.filter { local.unbacked[$0.key] == $0.value }
            local.unbacked = unbacked.filter { due[$0.key] == nil }
            return due
        }
        guard !due.isEmpty else { return }
        let failure = await store.apply { ledger in
            for (id, socket) in due {
                if let holder = ledger.sockets[id], holder.server == here, holder.socket == socket {
                    ledger.sockets.removeValue(forKey: id)
                }
            }
        }.failure
        if let failure {
            Self.logger.error("study \(name): places no page of this server used cannot be let go: \(failure)")
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
                let progress = try await storedProgress(
                    participant: session.participant, stimulus: stimulus, attempt: attempt)
            else { return }
            let said =
                "the server serving them stopped during \(stimulus.name) (\(SessionTime.percent(progress.coverage)) measured)"
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
                    "study \(name): participant #\(session.number): \(progress.frames) frames of \(stimulus.name) attempt \(attempt) were kept before their server stopped (\(SessionTime.percent(progress.coverage)) measured)"
                )
            }
        } catch {
            Self.logger.error(
                "study \(name): participant #\(session.number): what their stopped server measured cannot be read: \(error)"
            )
        }
    }

    /// What the store holds of an attempt a server never recorded (killed mid-stimulus), as its progress: nil when
    /// it holds no frame of it (or is a folder, whose server recovers its own files).
    /// - Throws: `StudyStoreFailure` when the database cannot be read; `MienError` for rows that are not results.
    func storedProgress(participant: String, stimulus: CollectionSettings.Stimulus, attempt: Int) async throws
        -> ParticipantSession.StimulusProgress?
    {
        guard
            let lines = try await store.keptResults(
                participant: participant, stimulus: stimulus.name, attempt: attempt), !lines.isEmpty
        else { return nil }
        var tally = ProgressTally(duration: stimulus.duration, span: settings.fieldwork.frameSpan)
        try JSONLinesReader.forEachResult(in: lines, source: "\(stimulus.name) attempt \(attempt)") { result in
            tally.received(at: result.timestamp)
            tally.add(result)
        }
        return tally.progress
    }
}
