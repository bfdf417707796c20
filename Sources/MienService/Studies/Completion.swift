import MienCore

/// Something that happens once (a socket finished closing), awaited by any number of tasks.
final class Completion: Sendable {
    private let state = Locked<(done: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Marks it done and resumes every waiter (later calls do nothing).
    func signal() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.done else { return [] }
            state.done = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    var isDone: Bool { state.withLock { $0.done } }

    /// Returns once `signal()` was called.
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.done { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Returns once `signal()` was called or `timeout` passed.
    /// - Returns: whether it was signalled.
    @discardableResult
    func wait(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.wait()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            if !first { self.signal() }  // frees the waiting child; the caller goes on without it
            group.cancelAll()
            return first
        }
    }
}
