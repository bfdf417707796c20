/// Finds the end of an HTTP/1 request head, the empty line after the header fields, across reads:
/// `\r\n\r\n`, or `\n\n` as lenient parsers also accept.
struct RequestHeadEnd: Equatable {
    private enum Position {
        case inLine, afterLineFeed, afterLineFeedAndReturn, complete
    }

    private var position = Position.inLine

    /// At the start of a line: an empty line next ends it (a chunked body's trailer, after its last chunk).
    static var atLineStart: RequestHeadEnd {
        var end = RequestHeadEnd()
        end.position = .afterLineFeed
        return end
    }

    /// Whether the head's empty line has been read.
    var isComplete: Bool { position == .complete }

    mutating func scan(_ bytes: some Sequence<UInt8>) {
        let (lineFeed, carriageReturn) = (UInt8(ascii: "\n"), UInt8(ascii: "\r"))
        for byte in bytes {
            switch (position, byte) {
            case (.complete, _): return
            case (.afterLineFeed, lineFeed), (.afterLineFeedAndReturn, lineFeed): position = .complete
            case (.afterLineFeed, carriageReturn): position = .afterLineFeedAndReturn
            case (_, lineFeed): position = .afterLineFeed
            default: position = .inLine
            }
        }
    }
}
