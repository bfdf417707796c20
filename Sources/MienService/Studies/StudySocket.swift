import Foundation
import HummingbirdWebSocket
import Logging
import Mien
import MienCore
import MienStudies
import NIOCore
import NIOWebSocket
import Prometheus

/// One participant socket of `/studies/{name}/live`, from its opening to its end: the participant's token,
/// another page of theirs closed, a place in the machine's analysis budget (waiting in the queue, told its place,
/// when the server is full), the framing check or a stimulus, and how it ended, said to the page before the
/// socket closes.
///
/// Messages to the page: `queued` (`position`, `waiting`), `ready` (`frameRate`, `attempt`), `rate`
/// (`frameRate`: the server is busier or less busy), `result` (framing), `error`, `ended` (a stimulus: its
/// `coverage`, whether it was `enough`, `attemptsLeft`, `screenedOut`), `saving` (the stimulus ended and its
/// results wait for the study's database, which does not answer: the page keeps waiting), `restarting` (close
/// 1012), `replaced` (another page of theirs went on; close 4001).
struct StudySocket {
    let desk: StudyDesk
    let models: ModelStore
    let metrics: ServiceMetrics
    let options: ServiceOptions
    let inbound: WebSocketInboundStream
    let outbound: WebSocketOutboundWriter

    /// The framing check's frames per second (the page sends one every 200 ms).
    static let framingRate = 5.0

    /// Messages read ahead of the socket's work at most (a stimulus's page sends a frame at a time).
    static let inboundBuffer = 16

    /// Serves the socket: its inbound side is read from the start to the end by a task of its own, so the pings of a
    /// socket waiting in the queue, or for its results to be saved, are answered and it is never dropped for a
    /// ping timeout.
    func run(study name: String, token: String?, stimulus: String?) async throws {
        let (messages, feed) = AsyncStream.makeStream(
            of: WebSocketMessage.self, bufferingPolicy: .bufferingNewest(Self.inboundBuffer))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [inbound, options] in
                defer { feed.finish() }
                do {
                    for try await message in inbound.messages(maxSize: options.maximumMessageBytes) {
                        feed.yield(message)
                    }
                } catch {
                    // A connection cut (network lost, tab closed): the socket's work sees its messages end.
                }
            }
            try await admitted(study: name, token: token, stimulus: stimulus, messages: messages)
            group.cancelAll()
        }
    }

    private func admitted(
        study name: String, token: String?, stimulus: String?, messages: AsyncStream<WebSocketMessage>
    ) async throws {
        let study: CollectedStudy
        let id: String
        let start = SocketStart()
        defer { start.finish() }
        do {
            guard !desk.stopping else { return try await close(.serverRestarting) }
            study = try await desk.study(name)
            id = try await study.participant(token: token)
        } catch {
            return try await refuse(error)
        }
        start.passed("its token")
        start.watch(study: name, participant: study.session(id)?.number, socket: stimulus ?? "framing")
        await study.takeOver(id)
        // A place another server passed here for this page is kept while it waits for a place in the analysis.
        defer { study.forgetReservation(id) }
        start.passed("taking over its earlier socket")
        let ticket = UUID()
        let relay = RateRelay()
        let wanted = stimulus == nil ? Self.framingRate : study.settings.frameRate
        let floor = stimulus == nil ? Self.framingRate : study.settings.fieldwork.minimumFrameRate
        let priority = study.session(id).map { CollectedStudy.goesFirst($0, now: study.clock()) } ?? false
        var rate = wanted
        var told = false
        let place = "\(name)\n\(id)"
        // One place in the queue per participant: a newer socket of theirs takes it at once (an older one waiting
        // leaves the queue now and is told `replaced` at its next turn), so one token's many sockets never stand
        // ahead of anyone, not even for the second an older one sleeps.
        let previous = desk.queued.withLock { queued -> UUID? in
            defer { queued[place] = ticket }
            return queued[place]
        }
        if let previous { desk.budget.leave(previous) }
        defer { desk.queued.withLock { if $0[place] == ticket { $0[place] = nil } } }
        queue: while true {
            if desk.stopping {
                desk.budget.leave(ticket)
                updateGauges()
                return try await close(.serverRestarting)
            }
            if desk.queued.withLock({ $0[place] }) != ticket {
                desk.budget.leave(ticket)
                updateGauges()
                return try await close(.replaced)
            }
            switch desk.budget.admit(
                ticket, rate: wanted, floor: floor, priority: priority, flowing: stimulus != nil,
                framing: stimulus == nil, onRate: { relay.set($0) })
            {
            case .admitted(let granted):
                rate = granted
                break queue
            case .queued(let position, let waiting):
                if !told {
                    start.finish()
                    if let number = study.session(id)?.number {
                        CollectedStudy.tally.note(
                            "\(name) queued",
                            "study \(name): participant #\(number) waits for a place (\(position) of \(waiting) in the queue)"
                        )
                    }
                    told = true
                }
                updateGauges()
                do {
                    try await outbound.write(.text(#"{"position":\#(position),"type":"queued","waiting":\#(waiting)}"#))
                    try await Task.sleep(for: .seconds(1))
                } catch {
                    desk.budget.leave(ticket)  // the page went away while waiting
                    updateGauges()
                    return
                }
            }
        }
        updateGauges()
        desk.memory.socketOpened()
        defer {
            desk.budget.release(ticket)
            updateGauges()
            desk.memory.socketClosed()
        }
        start.passed("a place in the analysis")
        if told { start.watch(study: name, participant: study.session(id)?.number, socket: stimulus ?? "framing") }
        try await serve(
            study: study, id: id, stimulus: stimulus, ticket: ticket, rate: rate, relay: relay, messages: messages,
            start: start)
    }

    private func serve(
        study: CollectedStudy, id: String, stimulus: String?, ticket: UUID, rate: Double, relay: RateRelay,
        messages: AsyncStream<WebSocketMessage>, start: SocketStart
    ) async throws {
        let closer = Closer()
        let socket = CollectedStudy.OpenSocket(
            kind: stimulus ?? "framing", inStimulus: stimulus != nil, opened: study.clock(),
            progress: { relay.progress() },
            close: { closer.close($0) })
        let outbox = LiveOutbox(capacity: options.maximumOutgoingMessages)
        let opened: StimulusStream
        var attempt = 1
        do {
            var chosen: CollectionSettings.Stimulus?
            if let stimulus {
                (chosen, attempt) = try await study.beginStimulus(id, stimulus: stimulus, socket: socket)
            } else {
                try await study.beginFraming(id, socket: socket)
            }
            start.passed("its \(stimulus == nil ? "framing check" : "attempt") recorded")
            do {
                opened = try await StimulusStream.open(
                    study: study, participant: id, stimulus: chosen, attempt: attempt, rate: rate, outbox: outbox,
                    models: models, metrics: metrics, cadenceWindow: options.frameCadenceWindow,
                    onFailure: { closer.close($0) })
            } catch {
                if let chosen {
                    await study.endStimulus(
                        id, stimulus: chosen, progress: .init(), end: .left, socket: socket.id, aborted: true)
                } else {
                    // The server's fault, not a failed try.
                    await study.framingEnded(id, socket: socket.id, passed: nil)
                }
                socket.done.signal()
                CollectedStudy.logger.error("study \(study.name): a socket could not start: \(error)")
                throw error is MienError ? CollectedStudy.unavailable : error
            }
        } catch {
            return try await refuse(error)
        }
        start.passed("its analysis opened")
        start.finish()
        start.logIfSlow(study: study.name, participant: study.session(id)?.number, socket: stimulus ?? "framing")
        relay.attach(opened)
        do {
            try await outbound.write(
                .text(#"{"attempt":\#(attempt),"frameRate":\#(LiveMessage.number(rate)),"type":"ready"}"#))
        } catch {
            // The page went away between its place and `ready` (it gave up in the queue): its run is stopped and its
            // end recorded, as any socket's (issue 94: such runs were never stopped, and 200 junk sockets behind
            // the framing cap kept 80 MB each round).
            _ = await opened.close(end: .left, socket: socket.id)
            socket.done.signal()
            outbox.close()
            throw error
        }
        let activity = LastActivity()
        let idle = Duration.seconds(options.idleSeconds)
        let deadline = FramingDeadline(opened: .now, timeoutSeconds: study.settings.framing.timeoutSeconds)
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in outbox.messages {
                    try await outbound.write(.text(message))
                    outbox.written()
                }
            }
            group.addTask {
                // The server ends the socket: a restart, another page of theirs, results not saved, idle.
                guard let end = await closer.ended() else { return }
                try await close(end)
            }
            group.addTask {
                while !closer.isClosed {
                    try await Task.sleep(for: .seconds(1))
                    // Once the page said the stimulus ended, it only waits for its results to be saved.
                    if activity.silence > idle, !opened.finished { closer.close(.idle) }
                    // A stimulus's place is kept for real viewing only: frames must keep coming.
                    if stimulus != nil, !opened.finished, let short = opened.cadence.trickling(at: .now) {
                        closer.close(.tooFewFrames(short, opened.cadence.window))
                    }
                    // A framing socket takes its share of the analysis only while its frames flow.
                    if stimulus == nil { desk.budget.setFlowing(ticket, opened.flowing(within: 3)) }
                    // A framing check ends in time whatever is sent (issue 94: a text every 30 s kept one for good).
                    if stimulus == nil, !opened.finished, deadline.expired(at: .now, passedAt: opened.framingPassedAt) {
                        closer.close(.framingOver)
                    }
                }
            }
            // Ends with the connection (network lost, tab closed): what was measured is kept below.
            for await message in messages {
                switch message {
                case .binary(let buffer):
                    activity.touch()
                    if let counts = opened.receiveFrame([UInt8](buffer: buffer)) {
                        desk.budget.report(received: counts.received, analysed: counts.analysed)
                    }
                // Only a message of a kind the socket takes is activity: junk keeps no socket open.
                case .text(let text): if opened.receiveText(text) { activity.touch() }
                }
                if opened.finished || closer.isClosed { break }
            }
            let end = closer.end
            let outcome = await opened.close(end: end, socket: socket.id)
            socket.done.signal()
            // Said once the participant's files and session are written, so the page's next request (the next
            // stimulus, completion) finds them.
            if end == nil, opened.finished {
                if let outcome, let data = try? JSONLinesWriter.makeEncoder().encode(outcome) {
                    outbox.send(String(decoding: data, as: UTF8.self))
                } else {
                    outbox.send(#"{"type":"ended"}"#)
                }
            }
            outbox.close()
            try? await group.next()
            closer.close(nil)
            try? await outbound.close(.normalClosure, reason: nil)
            group.cancelAll()
        }
    }
}
