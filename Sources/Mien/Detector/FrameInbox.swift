import Foundation

/// The `Detector`'s one way in: every frame, read by the detector or pushed by its caller, waits here
/// until the analysis takes it.
///
/// Bounded; when it is full a `.liveStream` inbox drops its oldest frame, the others make the producer wait.
/// Pushed frames are numbered here, from 0, and a tracked stream's timestamps are checked here, when they
/// arrive, so the pusher hears of a frame out of order at once. Every entry is stamped with its arrival, so a
/// result knows its latency.
final class FrameInbox: @unchecked Sendable {
    // Everything below is touched only while `condition` is locked.
    private let condition = NSCondition()
    private var entries: [Entry] = []
    private var closed = false
    private var failure: MienError?
    private var nextIndex = 0
    private var lastTimestamp: Double?
    /// Pushers from outside the run waiting for room (`whenThereIsRoom`), called when a frame is taken or the
    /// inbox closes.
    private var roomWaiters: [@Sendable () -> Void] = []

    let capacity: Int
    let dropsWhenBehind: Bool
    /// Whether frames are numbered here (pushed frames) or keep the source's indices.
    private let numbers: Bool
    /// Whether a frame's timestamp must be after the previous one's (a tracked stream of pushed frames).
    private let checksTime: Bool
    /// The name errors give for a frame refused here.
    private let name: String

    /// One thing waiting in the inbox, in arrival order.
    enum Entry: Sendable {
        /// A frame to analyse, with its arrival and, when `process(_:)` waits for it, where its result goes.
        case frame(Frame, Arrival)
        /// A frame to decode, then analyse.
        case encoded(EncodedFrame, Arrival)
        /// A frame dropped for a newer one (`.liveStream`): reported unprocessed, in its place.
        case dropped(DetectorResult, Arrival)
        /// An item of the input that could not be read (a picture of a folder); the input goes on.
        case unreadable(MienError)
    }

    /// When a frame arrived, and who waits for its result.
    struct Arrival: Sendable {
        var instant: ContinuousClock.Instant
        var reply: Reply?
    }

    init(capacity: Int, dropsWhenBehind: Bool, numbers: Bool, checksTime: Bool, name: String) {
        self.capacity = max(1, capacity)
        self.dropsWhenBehind = dropsWhenBehind
        self.numbers = numbers
        self.checksTime = checksTime
        self.name = name
    }

    /// Adds `frame`; in `.image` and `.video` mode waits for room, in `.liveStream` drops the oldest waiting
    /// frame: for the run's own reading thread (`SourceReader`), the one thread that blocks to put a frame here.
    ///
    /// - Parameter arrival: when the frame reached the program, if before now (default: now).
    /// - Returns: the frame as queued (numbered when the inbox numbers frames).
    /// - Throws: `.notStarted` when the inbox is closed (the detector stopped); `.nonMonotonicTimestamp`
    ///   when a tracked pushed frame is not after the previous one. A refused frame is not counted.
    @discardableResult
    func put(_ frame: Frame, arrival: ContinuousClock.Instant? = nil, reply: Reply? = nil) throws -> Frame {
        // Waiting, `admit` always admits or throws.
        try put(frame, arrival: arrival, reply: reply, waiting: true) ?? frame
    }

    /// Adds `frame` as `put` does, or, without `waiting`, returns nil at once when a waiting (`.image`,
    /// `.video`) inbox is full.
    func put(_ frame: Frame, arrival: ContinuousClock.Instant?, reply: Reply?, waiting: Bool) throws -> Frame? {
        var frame = frame
        let admitted = try admit(timestamp: frame.timestamp, waiting: waiting) { index in
            if let index { frame.index = index }
            return .frame(frame, Arrival(instant: arrival ?? .now, reply: reply))
        }
        return admitted ? frame : nil
    }

    /// Adds a frame still to be decoded, as `put(_:arrival:reply:)` does a decoded one.
    /// - Returns: its index; nil without `waiting` when a waiting (`.image`, `.video`) inbox is full.
    func put(
        _ encoded: EncodedFrame, arrival: ContinuousClock.Instant? = nil, reply: Reply? = nil, waiting: Bool = true
    ) throws -> Int? {
        var encoded = encoded
        let admitted = try admit(timestamp: encoded.timestamp, waiting: waiting) { index in
            encoded.index = index ?? 0
            return .encoded(encoded, Arrival(instant: arrival ?? .now, reply: reply))
        }
        return admitted ? encoded.index : nil
    }

    /// Calls `handler` once a waiting (`.image`, `.video`) inbox has room for a frame or is closed: at once, on the
    /// caller's thread, if it has; else on the thread that takes a frame or closes the inbox.
    ///
    /// The one way a pusher from outside the run waits (the run's async `push` suspends on it, the Affdex layer's
    /// blocking `push` waits on it through `AffdexWait`); only the run's own reading thread blocks in `put`.
    func whenThereIsRoom(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        // Checked under the lock `take` and `close` call waiters under: no wake-up is lost in between.
        if closed || waitingFrames < capacity {
            condition.unlock()
            handler()
        } else {
            roomWaiters.append(handler)
            condition.unlock()
        }
    }

    /// Suspends, blocking no thread, until a waiting (`.image`, `.video`) inbox has room for a frame or is
    /// closed.
    func waitForRoom() async {
        await withCheckedContinuation { continuation in whenThereIsRoom { continuation.resume() } }
    }

    /// Admits one frame: waits for room (`.image`, `.video`, `waiting`; without it returns false when full),
    /// checks the time, numbers it, appends `entry(index)`.
    ///
    /// Then drops the oldest waiting frame beyond the capacity (`.liveStream`). The index is nil when frames
    /// keep their own.
    private func admit(timestamp: Double, waiting: Bool, entry: (Int?) -> Entry) throws -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !dropsWhenBehind {
            if !waiting && waitingFrames >= capacity && !closed { return false }
            while waitingFrames >= capacity && !closed { condition.wait() }
        }
        guard !closed else { throw MienError(.notStarted, "the detector is stopped", input: name) }
        if checksTime, let lastTimestamp, timestamp <= lastTimestamp {
            throw MienError(
                .nonMonotonicTimestamp,
                "frame timestamp \(timestamp) s is not after the previous frame's \(lastTimestamp) s", input: name)
        }
        lastTimestamp = timestamp
        var index: Int?
        if numbers {
            index = nextIndex
            nextIndex += 1
        }
        entries.append(entry(index))
        if dropsWhenBehind && waitingFrames > capacity { dropOldest() }
        condition.broadcast()
        return true
    }

    /// Adds an unreadable item of the input (a folder goes on after it); false once closed.
    @discardableResult
    func putUnreadable(_ error: MienError) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !dropsWhenBehind {
            while waitingFrames >= capacity && !closed { condition.wait() }
        }
        guard !closed else { return false }
        entries.append(.unreadable(error))
        condition.broadcast()
        return true
    }

    /// The oldest entry, waiting for one; nil once the inbox is closed and empty.
    func take() -> Entry? {
        condition.lock()
        defer { condition.unlock() }
        while entries.isEmpty && !closed { condition.wait() }
        guard !entries.isEmpty else { return nil }
        let entry = entries.removeFirst()
        condition.broadcast()
        resumeRoomWaiters()
        return entry
    }

    /// Wakes the async pushers waiting for room (the caller holds the lock); each tries again.
    private func resumeRoomWaiters() {
        for waiter in roomWaiters { waiter() }
        roomWaiters.removeAll()
    }

    /// Refuses further frames and wakes everyone; what is already in is still taken, unless `discarding`.
    ///
    /// - Parameter failure: why the input ended (a camera unplugged), for `endedBy` once the entries before
    ///   it are taken.
    func close(failure: MienError? = nil, discarding: Bool = false) {
        condition.lock()
        closed = true
        if let failure, self.failure == nil { self.failure = failure }
        if discarding {
            for entry in entries {
                switch entry {
                case .frame(_, let arrival), .encoded(_, let arrival), .dropped(_, let arrival):
                    arrival.reply?.fulfil(.failure(MienError(.notStarted, "the detector stopped", input: name)))
                case .unreadable: continue
                }
            }
            entries.removeAll()
        }
        condition.broadcast()
        resumeRoomWaiters()
        condition.unlock()
    }

    /// Why the input ended early, if it did (read after `take()` returned nil).
    var endedBy: MienError? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Numbering and the timestamp check start over (`Detector.reset()`).
    func restart() {
        condition.lock()
        nextIndex = 0
        lastTimestamp = nil
        condition.unlock()
    }

    private var waitingFrames: Int {
        entries.count { Self.isWaitingFrame($0) }
    }

    private static func isWaitingFrame(_ entry: Entry) -> Bool {
        switch entry {
        case .frame, .encoded: true
        case .dropped, .unreadable: false
        }
    }

    /// Replaces the oldest waiting frame by its unprocessed result, releasing its pixels (or bytes).
    private func dropOldest() {
        guard let oldest = entries.firstIndex(where: Self.isWaitingFrame) else { return }
        switch entries[oldest] {
        case .frame(let frame, let arrival):
            entries[oldest] = .dropped(DetectorResult(unprocessed: frame), arrival)
        case .encoded(let encoded, let arrival):
            entries[oldest] = .dropped(DetectorResult(unprocessed: encoded), arrival)
        case .dropped, .unreadable:
            break
        }
    }
}

/// Where the result of one frame given to `process(_:)` goes: handed to whoever waits for it, once.
///
/// One way of waiting: a handler, called on the thread that hands the result over. `result()` suspends on it; the
/// Affdex layer's blocking `process(_:)` waits on it through its one bridge (`AffdexWait`).
final class Reply: Sendable {
    typealias Outcome = Result<DetectorResult, any Error>
    private struct State {
        var outcome: Outcome?
        var handler: (@Sendable (Outcome) -> Void)?
    }
    private let state = Locked(State())

    /// Hands over the frame's result or error; only the first call counts.
    func fulfil(_ result: Outcome) {
        let handler = state.withLock { state -> (@Sendable (Outcome) -> Void)? in
            guard state.outcome == nil else { return nil }
            state.outcome = result
            defer { state.handler = nil }
            return state.handler
        }
        handler?(result)
    }

    /// Calls `handler` with the outcome once it is handed over (at once if it already was).
    ///
    /// One handler per reply.
    func whenFulfilled(_ handler: @escaping @Sendable (Outcome) -> Void) {
        let outcome = state.withLock { state -> Outcome? in
            if state.outcome == nil { state.handler = handler }
            return state.outcome
        }
        if let outcome { handler(outcome) }
    }

    /// Suspends until the result is handed over, blocking no thread.
    func result() async throws -> DetectorResult {
        try await withCheckedThrowingContinuation { continuation in
            whenFulfilled { continuation.resume(with: $0) }
        }
    }
}
