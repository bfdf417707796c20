import Foundation
import MienCore

/// A request's `Range: bytes=…` over a file of a known size (RFC 9110 §14.1.2), one range: what a `<video>`
/// element asks for when it starts, seeks or buffers a stimulus.
///
/// `bytes=A-B`, `bytes=A-` and `bytes=-N` (the last N bytes) are read; several ranges, another unit or a header that
/// does not parse are ignored (the whole file is served, as the RFC allows).
struct ByteRange: Equatable {
    /// The first and last byte served, within the file.
    let bytes: ClosedRange<Int>

    /// What a `Range` header asks of a file of `size` bytes.
    enum Request: Equatable {
        /// The whole file (no header, or one that is ignored).
        case whole
        /// A part of it: 206 with `Content-Range`.
        case part(ByteRange)
        /// Nothing the file holds (a start at or past its end, or an empty file): 416.
        case unsatisfiable
    }

    static func request(_ header: String?, size: Int) -> Request {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = Int(decimal: parts[0])
        let last = Int(decimal: parts[1])
        switch (parts[0].isEmpty, parts[1].isEmpty) {
        case (true, false):
            // The last N bytes.
            guard let count = last, count >= 0 else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(ByteRange(bytes: max(0, size - count)...(size - 1)))
        case (false, _):
            guard let start = first, start >= 0 else { return .whole }
            if let last, last < start { return .whole }
            guard start < size else { return .unsatisfiable }
            return .part(ByteRange(bytes: start...min(last ?? size - 1, size - 1)))
        default:
            return .whole
        }
    }

    /// The `Content-Range` of this part of a file of `size` bytes.
    func contentRange(of size: Int) -> String { "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)" }
}
