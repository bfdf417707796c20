import Foundation
import MienCore

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to 127.0.0.1, for the checks Hummingbird's test client cannot make: bytes the
/// server writes in the same read as a response header, and connections that never send a byte.
final class LoopbackSocket: Sendable {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; a read waits at most `receiveTimeout` seconds.
    init(port: Int, receiveTimeout: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EBADF) }
        var wait = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    func send(_ bytes: [UInt8]) throws {
        guard Glibc.send(descriptor, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
    }

    /// What one read brings: bytes, `[]` when the server closed the connection, `nil` when nothing came
    /// within the receive timeout (or the read failed).
    ///
    /// The read blocks a `BlockingWork` thread, not one of Swift's cooperative pool (which on Linux
    /// `DispatchQueue.global()`'s threads are): on two cores, two tests waiting in `recv` would leave the
    /// in-process server no thread to answer them.
    func receive() async -> [UInt8]? {
        await BlockingWork.run { self.receiveBlocking() }
    }

    /// `receive()` on the calling thread, for synchronous callers.
    func receiveBlocking() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count < 0 ? nil : Array(buffer[0..<count])
    }
}
