import Foundation
import HummingbirdWSClient
import Logging
import Mien
import MienCore
import NIOCore
import NIOWebSocket
import WSCore

/// A simulated participant's framing check, as the page does it: camera frames to the study's framing socket at
/// the page's 5 a second until the server says `positioned` (it judges the check itself: a stimulus needs one it
/// saw pass), then `{"type":"framed"}`, and the server's `ended` once the session holds it.
enum FramingCheck {
    /// Passes the check on `url` (`ws://host/studies/NAME/live?session=TOKEN`) with `frames` (JPEG, a face).
    /// - Parameter timeout: seconds to wait for the server's `positioned`, from the socket's `ready`.
    /// - Throws: `MienError` with what the socket heard when the check did not pass.
    static func pass(url: String, frames: [[UInt8]], timeout: Double = 30) async throws {
        let heard = Locked<(ready: Bool, positioned: Bool, ended: Bool, types: [String])>((false, false, false, []))
        _ = try await WebSocketClient.connect(
            url: url, configuration: .init(maxFrameSize: 1 << 24), logger: Logger(label: "framing")
        ) { inbound, outbound, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await message in inbound.messages(maxSize: 1 << 24) {
                        guard case .text(let text) = message,
                            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                        else { continue }
                        let type = object["type"] as? String ?? "?"
                        heard.withLock { heard in
                            heard.types.append(type == "error" ? "error \(object["error"] ?? "")" : type)
                            switch type {
                            case "ready": heard.ready = true
                            case "positioned": heard.positioned = true
                            case "ended": heard.ended = true
                            default: break
                            }
                        }
                        if type == "ended" { return }
                    }
                }
                group.addTask {
                    // The queue, when the server is full, before `ready`.
                    let opened = ContinuousClock.now
                    while !heard.withLock({ $0.ready }), ContinuousClock.now - opened < .seconds(120) {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    let start = ContinuousClock.now
                    var index = 0
                    while heard.withLock({ $0.ready && !$0.positioned }),
                        ContinuousClock.now - start < .seconds(timeout)
                    {
                        var bits = (Double(index) * 200).bitPattern.littleEndian
                        let message = withUnsafeBytes(of: &bits) { Array($0) } + frames[index % frames.count]
                        index += 1
                        try await outbound.write(.binary(ByteBuffer(bytes: message)))
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    if heard.withLock({ $0.positioned }) {
                        try await outbound.write(.text(#"{"type":"framed"}"#))
                    } else {
                        try? await outbound.close(.normalClosure, reason: nil)
                    }
                }
                try await group.waitForAll()
            }
        }
        let (ended, types) = heard.withLock { ($0.ended, $0.types) }
        guard ended else {
            throw MienError(.internalFailure, "framing check not passed (heard \(types.joined(separator: ", ")))")
        }
    }
}
