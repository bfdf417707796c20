import MienCore
import MienVision
import Synchronization

/// Returns the heap's free memory to the system once no participant socket is open in the process: 10 s after the
/// last one closes, at most once a minute, off the cooperative pool (`ProcessTuning.releaseFreeMemory`).
///
/// Why: each socket holds a detector run while open, and glibc keeps what it freed in its arenas; 1,000 framing
/// sockets held open by junk added 900 MB that stayed after they closed (issue 94). Measured with 200: 393 MB after
/// they closed, 198 MB after a release (the server's 109 MB at start plus the models the checks loaded).
///
/// Why only when none is open: `malloc_trim` locks each arena while it walks it, so every allocation in the process
/// waits meanwhile; run after each burst of closes beside live sockets it stalled their frames (in the service tests,
/// several servers in one process, viewers' frames went unanalysed and timers fired late). A server that is never
/// idle keeps its peak, which the limits on sockets bound.
package final class MemoryRelease: Sendable {
    /// One for the process: the heap is the process's.
    package static let shared = MemoryRelease()

    private struct State {
        var enabled = false
        var open = 0
        var pending = false
        var last: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// How long after the last close the release waits (a burst's stragglers close meanwhile).
    let delay: Duration
    /// The least time between two releases.
    let spacing: Duration

    init(delay: Duration = .seconds(10), spacing: Duration = .seconds(60)) {
        self.delay = delay
        self.spacing = spacing
    }

    /// Lets releases happen: only the executable that owns the process does (`mien serve`).
    ///
    /// Why not a library's default: the heap is the process's, and `malloc_trim` locks every arena it walks; in a
    /// process holding far more than this server (the test process, with every suite's servers and detectors, had
    /// stalls of minutes after releases), one server must not lock everyone's allocator.
    package func enable() { state.withLock { $0.enabled = true } }

    /// A participant socket holds a detector run from now.
    func socketOpened() { state.withLock { $0.open += 1 } }

    /// A participant socket that `socketOpened()` counted closed.
    func socketClosed() {
        let schedule = state.withLock { state -> Bool in
            state.open = max(0, state.open - 1)
            guard state.enabled, state.open == 0, !state.pending else { return false }
            state.pending = true
            return true
        }
        guard schedule else { return }
        Task.detached { [self] in
            var wait = delay
            while true {
                // A cancelled sleep (the server stopping) goes on at once: nothing is lost by it.
                try? await Task.sleep(for: wait)
                let now = ContinuousClock.now
                // Too soon after the last release: waits out the spacing rather than dropping this one (a lull
                // between waves of sockets released, and the end of the last wave was then never returned).
                let next = state.withLock { state -> Duration? in
                    guard state.open == 0 else {
                        state.pending = false
                        return nil
                    }
                    if let last = state.last, now - last < spacing { return spacing - (now - last) }
                    state.pending = false
                    state.last = now
                    return .zero
                }
                guard let next else { return }
                if next == .zero {
                    await BlockingWork.run { ProcessTuning.releaseFreeMemory() }
                    return
                }
                wait = next
            }
        }
    }
}
