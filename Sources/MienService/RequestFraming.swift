import Foundation
import MienCore

/// Where HTTP/1.1 requests begin and end in a connection's bytes, across reads.
///
/// The head goes up to its empty line, then a body of `Content-Length` bytes or chunks up to the last one and its
/// trailer. It only counts; NIO's parser
/// decides what a request means, so a malformed one is whatever NIO says it is.
///
/// Why: the connection guard (`RequestGuard`) holds each request to a deadline from its first byte to its last,
/// which needs to know where a body ends (issue 94: bodies at one byte every 12 s held their sockets past 120 s,
/// because the idle timeout counts silence, and a byte a minute is never silent long).
struct RequestFraming {
    private enum State: Equatable {
        /// Between requests: no byte of the next one yet.
        case idle
        /// Inside a head; its field lines so far (the first 16 KB: enough for the two fields it looks for).
        case head(RequestHeadEnd)
        /// Inside a body of known length: the bytes still to come.
        case body(remaining: Int)
        /// Inside a chunk-size line (its hex digits so far; after `;` an extension, skipped).
        case chunkSize(value: Int, digits: Int, inExtension: Bool)
        /// Inside a chunk's data: the bytes still to come, then its line end.
        case chunkData(remaining: Int)
        /// After a chunk's data: its CRLF.
        case chunkDataEnd
        /// After the last chunk: trailer fields up to an empty line.
        case trailer(RequestHeadEnd)
    }

    private var state = State.idle
    private var headBytes: [UInt8] = []
    private static let keptHeadBytes = 16 << 10

    /// Whether some of a request has arrived and not all of it.
    var inRequest: Bool { state != .idle }

    /// Reads `bytes`; returns how many requests ended in them.
    @discardableResult
    mutating func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
        var ended = 0
        var index = bytes.startIndex
        while index != bytes.endIndex {
            // A body's bytes are skipped in bulk: an upload of 2 GB is not read a byte at a time.
            switch state {
            case .body(let remaining), .chunkData(let remaining):
                let taken = min(remaining, bytes.distance(from: index, to: bytes.endIndex))
                index = bytes.index(index, offsetBy: taken)
                let isBody = state == .body(remaining: remaining)
                if taken < remaining {
                    state = isBody ? .body(remaining: remaining - taken) : .chunkData(remaining: remaining - taken)
                } else if isBody {
                    state = .idle
                    ended += 1
                } else {
                    state = .chunkDataEnd
                }
            default:
                if step(bytes[index]) { ended += 1 }
                index = bytes.index(after: index)
            }
        }
        return ended
    }

    /// One byte; true when it ends a request.
    private mutating func step(_ byte: UInt8) -> Bool {
        switch state {
        case .idle:
            // Line ends between requests are allowed (RFC 9112 §2.2) and begin nothing.
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") { return false }
            headBytes = []
            var head = RequestHeadEnd()
            head.scan(CollectionOfOne(byte))
            headBytes.append(byte)
            state = .head(head)
            return false
        case .head(var head):
            head.scan(CollectionOfOne(byte))
            if headBytes.count < Self.keptHeadBytes { headBytes.append(byte) }
            guard head.isComplete else {
                state = .head(head)
                return false
            }
            let (length, chunked) = Self.bodyFraming(headBytes)
            headBytes = []
            if chunked {
                state = .chunkSize(value: 0, digits: 0, inExtension: false)
            } else if length > 0 {
                state = .body(remaining: length)
            } else {
                state = .idle
                return true
            }
            return false
        case .chunkSize(let value, let digits, let inExtension):
            if byte == UInt8(ascii: "\n") {
                state = value == 0 ? .trailer(.atLineStart) : .chunkData(remaining: value)
            } else if !inExtension, let digit = Self.hexDigit(byte) {
                // A size past 2^56 is no body anyone sends; NIO refuses it, this only stops counting up.
                state = .chunkSize(
                    value: digits < 14 ? value << 4 | digit : value, digits: digits + 1, inExtension: false)
            } else if byte == UInt8(ascii: ";") || inExtension {
                state = .chunkSize(value: value, digits: digits, inExtension: true)
            }
            return false
        case .body, .chunkData:
            // `scan` skips these in bulk.
            return false
        case .chunkDataEnd:
            if byte == UInt8(ascii: "\n") { state = .chunkSize(value: 0, digits: 0, inExtension: false) }
            return false
        case .trailer(var trailer):
            trailer.scan(CollectionOfOne(byte))
            if trailer.isComplete {
                state = .idle
                return true
            }
            state = .trailer(trailer)
            return false
        }
    }

    /// The body's length (`Content-Length`, 0 without one) and whether it is chunked, from a head's bytes.
    static func bodyFraming(_ head: [UInt8]) -> (length: Int, chunked: Bool) {
        var length = 0
        var chunked = false
        let text = String(decoding: head, as: UTF8.self)
        // `isNewline`: Swift reads "\r\n" as one Character, equal to neither "\r" nor "\n".
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" {
                length = Int(decimal: value) ?? 0
            } else if name == "transfer-encoding" {
                chunked = value.lowercased().contains("chunked")
            }
        }
        return (length, chunked)
    }

    private static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(truncatingIfNeeded: byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(truncatingIfNeeded: byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(truncatingIfNeeded: byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
