import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A WebSocket handshake over a plain loopback socket, reading what the server sends straight after it.
///
/// For the one check where the server writes and closes immediately after the upgrade (a refused
/// session): Hummingbird's test client can drop frames that arrive in the same read as the `101` response
/// and then waits forever (seen about once in ten runs on a loaded machine), so this reads the bytes
/// itself. Server frames are unmasked, so a text frame's payload is readable in the bytes.
enum RawWebSocket {
    /// Connects to 127.0.0.1:`port`, asks to upgrade `path`, and returns the bytes received until the
    /// server's close frame, the end of the stream or `timeout` seconds without data.
    static func handshakeAndRead(port: Int, path: String, timeout: Int = 10) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        defer { close(fd) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let bytes = Array(request.utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let headerEnd = Array("\r\n\r\n".utf8)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
            // Done at the server's close frame (opcode 8, FIN set) after the response's header.
            if let end = received.indices.first(where: { received[$0...].starts(with: headerEnd) }),
                received[(end + 4)...].contains(0x88)
            {
                break
            }
        }
        return received
    }
}
