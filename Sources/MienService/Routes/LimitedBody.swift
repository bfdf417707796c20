import Hummingbird
import MienCore
import NIOCore

/// A request body that fails with `.tooLarge` once more than `limit` bytes have come, counting them as they pass:
/// an upload streamed to a file (Hummingbird's `FileIO`) stops at the limit without holding the body in memory.
struct LimitedBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    /// The most bytes let through.
    let limit: Int
    private let counted = Locked(0)

    init(_ base: Base, limit: Int) {
        self.base = base
        self.limit = limit
    }

    /// Bytes let through so far.
    var bytes: Int { counted.withLock { $0 } }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        let counted: Locked<Int>

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            let total = counted.withLock { count in
                count += chunk.readableBytes
                return count
            }
            guard total <= limit else {
                throw MienError(.tooLarge, "the upload is over the limit of \(limit) bytes", input: "request body")
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, counted: counted)
    }
}
