/// Async work done one piece at a time, in the order it asked: an async lock for steps that await in the middle
/// and must never interleave (a live session's ending of one detector and starting of the next).
///
/// An actor alone does not do this: it is re-entered at every `await` inside its methods.
actor Turns {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once every earlier caller's body has returned.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if busy {
            // The caller that ends its turn hands it over directly (`busy` stays true), so nobody overtakes.
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
