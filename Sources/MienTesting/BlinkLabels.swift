import Foundation
import Mien

/// The hand-labelled blinks of the development videos (`Tests/Fixtures/blink-labels/blinks.csv`): per video
/// (its path under the evaluation folder), the first and last closed frame of each blink and of each long
/// closure (not a blink).
public struct BlinkLabels: Sendable {
    /// One labelled run of closed frames.
    public struct Run: Sendable, Equatable {
        public enum Kind: String, Sendable { case blink, closure }
        public var kind: Kind
        /// First and last closed frame (decoder frame numbers from 0).
        public var first: Int
        public var last: Int
    }

    /// Video path (relative to the evaluation folder) to its runs, in frame order.
    public let videos: [String: [Run]]

    /// The committed labels.
    public static var path: String {
        SampleMedia.repositoryRoot.appendingPathComponent("Tests/Fixtures/blink-labels/blinks.csv").path
    }

    /// Reads the labels at `path` (lines starting with `#` are comments; the first other line is the header).
    /// - Throws: when the file cannot be read or a row is malformed (naming the line).
    public init(path: String = BlinkLabels.path) throws {
        var videos: [String: [Run]] = [:]
        for (number, cells) in try CSVRecords.rows(ofCommented: path).dropFirst().enumerated() {
            guard cells.count == 4, let kind = Run.Kind(rawValue: cells[1]), let first = Int(cells[2]),
                let last = Int(cells[3]), first <= last
            else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: "\(path) row \(number + 1)"]) }
            videos[cells[0], default: []].append(Run(kind: kind, first: first, last: last))
        }
        self.videos = videos
    }
}
