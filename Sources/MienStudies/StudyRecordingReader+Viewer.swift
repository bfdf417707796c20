/// Which faces of a recording are the participant's.
///
/// A webcam study films one participant, and the tracker gives a face that leaves the picture and comes back (a
/// look at the phone below the camera, a step away) a new ID. Taking only the face seen longest would drop the
/// rest of that participant's viewing (a viewer out of frame for a second in the middle of a stimulus kept under
/// half of it, and was excluded). So the participant is the face seen longest joined by every other face that is
/// never in a frame with the faces already joined, longest first, and seen over at least `joinedSpan`; a face seen
/// beside the participant (someone else in the room) is never joined.
import Mien

extension StudyRecordingReader {
    /// One face's sums within a window: per metric, per bin.
    struct FaceSums {
        var times: [Int] = []
        /// The frames where whether the face watched could be judged (`watching(_:)`): time, watching.
        var judged: [Int: Bool] = [:]
        var sums: [String: [Double]] = [:]
        var counts: [String: [Int]] = [:]
        /// The times of the frames flagged `settling` (left out of the expression metrics and episode shares), and
        /// the earliest frame that was not.
        var settling: Set<Int> = []
        var firstSettled: Int?
        /// The times of the frames the responses read: watched (or every frame with `--all-frames`) and settled.
        var counted: Set<Int> = []

        /// Adds `value` to `metric`'s sum in `bin`, as `count` frames (one frame's score, or another face's sum).
        mutating func add(_ value: Double, count: Int = 1, metric: String, bin: Int) {
            let have = sums[metric]?.count ?? 0
            if have <= bin {
                sums[metric, default: []] += repeatElement(0, count: bin + 1 - have)
                counts[metric, default: []] += repeatElement(0, count: bin + 1 - have)
            }
            sums[metric, default: []][bin] += value
            counts[metric, default: []][bin] += count
        }

        /// Adds another face's frames, which share none with these.
        mutating func join(_ other: FaceSums) {
            times = (times + other.times).sorted()
            judged.merge(other.judged) { own, _ in own }
            settling.formUnion(other.settling)
            counted.formUnion(other.counted)
            firstSettled = [firstSettled, other.firstSettled].compactMap { $0 }.min()
            for (metric, binSums) in other.sums {
                let binCounts = other.counts[metric] ?? []
                for bin in binSums.indices where binCounts[bin] > 0 {
                    add(binSums[bin], count: binCounts[bin], metric: metric, bin: bin)
                }
            }
        }
    }

    /// The participant in a window.
    struct Viewer {
        /// The face seen longest: the participant's `faceId` in the tables.
        var id: Int
        /// Every face taken as the participant, the longest seen first.
        var faces: [Int]
        var sums: FaceSums
    }

    /// Milliseconds between its first and last frame a face must span to be joined: a detector's brief false find on
    /// a picture without the participant (one frame at 6.15 s of the evaluation's `face_noface.mov`) is not them
    /// coming back.
    static let joinedSpan = 500

    /// The participant among `faces`, or nil when there is no face.
    static func viewer(_ faces: [Int: FaceSums]) -> Viewer? {
        // Longest first; among faces seen as long, the lower ID (the one seen first).
        let ordered = faces.sorted { ($0.value.times.count, $1.key) > ($1.value.times.count, $0.key) }
        guard let first = ordered.first else { return nil }
        var viewer = Viewer(id: first.key, faces: [first.key], sums: first.value)
        var seen = Set(first.value.times)
        for (id, sums) in ordered.dropFirst()
        where (sums.times.last ?? 0) - (sums.times.first ?? 0) >= joinedSpan && seen.isDisjoint(with: sums.times) {
            viewer.faces.append(id)
            viewer.sums.join(sums)
            seen.formUnion(sums.times)
        }
        return viewer
    }

    /// The episodes of `faces` together, per metric (faces absent from `episodes` have none).
    static func merged(_ faces: [Int], of episodes: [Int: [String: [(Int, Int)]]]) -> [String: [(Int, Int)]] {
        var merged: [String: [(Int, Int)]] = [:]
        for face in faces {
            for (metric, spans) in episodes[face] ?? [:] { merged[metric, default: []] += spans }
        }
        return merged.mapValues { $0.sorted { $0.0 < $1.0 } }
    }
}
