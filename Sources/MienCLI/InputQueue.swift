import Foundation
import Mien
import MienCore

/// What became of one input of `mien analyze`.
struct InputOutcome: Sendable {
    enum Status: Sendable {
        /// Analysed to the end.
        case done
        /// Not started (Ctrl-C came first).
        case notStarted
        /// Its outputs were already complete (`--resume`).
        case alreadyDone
        /// Stopped by Ctrl-C or SIGTERM part way; the files hold the frames done.
        case interrupted
        case failed, modelProblem
    }
    var status: Status
    var report: InputReport?
    /// Frames written, when the input ran (or its earlier run's count, when already done).
    var frames: Int?
    /// Why it failed, or what stopped it.
    var error: String?
}

/// Runs inputs on up to `jobs` threads, each taking the next input when it is free; outcomes come back
/// in input order whatever order the inputs finish in.
struct InputQueue {
    var names: [String]
    var jobs: Int

    func run(_ body: @escaping @Sendable (String) -> InputOutcome) -> [InputOutcome] {
        map(body).map { $0 ?? InputOutcome(status: .notStarted) }
    }

    /// `body`'s value for every name, in the names' order, computed on up to `jobs` threads (nil for a name
    /// no thread reached, which does not happen unless `body` traps).
    func map<Value: Sendable>(_ body: @escaping @Sendable (String) -> Value) -> [Value?] {
        let next = Locked(0)
        let outcomes = Locked([Value?](repeating: nil, count: names.count))
        let names = self.names
        let work: @Sendable () -> Void = {
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < names.count else { return }
                let outcome = body(names[index])
                outcomes.withLock { $0[index] = outcome }
            }
        }
        let workers = max(1, min(jobs, names.count))
        if workers == 1 {
            work()
        } else {
            let group = DispatchGroup()
            for _ in 0..<workers {
                // Dedicated threads (not the cooperative pool): each input blocks on OpenCV for its whole run.
                let thread = Thread {
                    work()
                    group.leave()
                }
                thread.stackSize = 8 << 20
                group.enter()
                thread.start()
            }
            group.wait()
        }
        return outcomes.withLock { $0 }
    }
}
