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

/// Runs inputs up to `jobs` at a time, each worker taking the next input when it is free; outcomes come back
/// in input order whatever order the inputs finish in.
///
/// The workers are child tasks: an input's analysis is a `Detector.Run` on threads of its own, which they await,
/// and what else blocks (files, a recording's results read back) goes through `BlockingWork`.
struct InputQueue {
    var names: [String]
    var jobs: Int

    func run(_ body: @escaping @Sendable (String) async -> InputOutcome) async -> [InputOutcome] {
        await map(body).map { $0 ?? InputOutcome(status: .notStarted) }
    }

    /// `body`'s value for every name, in the names' order, computed by up to `jobs` workers at once (nil for a
    /// name no worker reached, which does not happen unless `body` traps).
    func map<Value: Sendable>(_ body: @escaping @Sendable (String) async -> Value) async -> [Value?] {
        let next = Locked(0)
        let names = self.names
        let workers = max(1, min(jobs, names.count))
        return await withTaskGroup(of: [(Int, Value)].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var done: [(Int, Value)] = []
                    while true {
                        let index = next.withLock { value -> Int in
                            defer { value += 1 }
                            return value
                        }
                        guard index < names.count else { return done }
                        done.append((index, await body(names[index])))
                    }
                }
            }
            var outcomes = [Value?](repeating: nil, count: names.count)
            for await done in group {
                for (index, value) in done { outcomes[index] = value }
            }
            return outcomes
        }
    }

    /// `body`'s value for every name as `map` computes it, for a body that blocks (reads files): each call runs
    /// through `BlockingWork`, off the cooperative pool.
    func mapBlocking<Value: Sendable>(_ body: @escaping @Sendable (String) -> Value) async -> [Value?] {
        await map { name in await BlockingWork.run { body(name) } }
    }
}
