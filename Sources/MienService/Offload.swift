import Dispatch

/// Runs blocking work (decoding, analysis, stopping a detector) on Dispatch's threads instead of Swift's
/// cooperative pool, which has one thread per core (2 here): an analysis holding one of them would stall
/// every other request and socket.
enum Offload {
    private static let queue = DispatchQueue(label: "mien.service.work", attributes: .concurrent)

    static func run<T>(_ work: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
