import MienCore

/// A WebSocket handshake over a plain loopback socket, reading what the server sends straight after it.
///
/// For the one check where the server writes and closes immediately after the upgrade (a refused
/// session): Hummingbird's test client can drop frames that arrive in the same read as the `101` response
/// and then waits forever (seen about once in ten runs on a loaded machine), so this reads the bytes
/// itself. Server frames are unmasked, so a text frame's payload is readable in the bytes.
enum RawWebSocket {
    /// Connects to 127.0.0.1:`port`, asks to upgrade `path`, and returns the bytes received until the
    /// server's close frame, the end of the stream or `timeout` seconds without data.
    ///
    /// Off the cooperative pool: a receive that blocks one of its threads (two on a 2-core machine) while other
    /// tests run could starve the very server it waits for (the refusal then never came within the timeout).
    static func handshakeAndRead(port: Int, path: String, timeout: Int = 10) async throws -> [UInt8] {
        try await BlockingWork.run { try blockingHandshakeAndRead(port: port, path: path, timeout: timeout) }
    }

    private static func blockingHandshakeAndRead(port: Int, path: String, timeout: Int) throws -> [UInt8] {
        let socket = try LoopbackSocket(port: port, receiveTimeout: timeout)
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try socket.send(Array(request.utf8))
        var received: [UInt8] = []
        let headerEnd = Array("\r\n\r\n".utf8)
        while let bytes = socket.receiveBlocking(), !bytes.isEmpty {
            received += bytes
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
