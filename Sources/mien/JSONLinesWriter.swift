import Foundation

/// Writes one JSON object per line to standard output and flushes it, so a consumer reading the pipe
/// sees each frame as soon as it is analysed.
final class JSONLinesWriter {
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func write(_ value: some Encodable) throws {
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        try Console.output(data)
    }
}
