import MienCore

/// One face's eyes and mouth over the last moments of a stream: whether its eyes have stayed shut longer than a
/// blink (`eyesClosed`) and whether it is talking (`talking`), each 0 or 100 per frame, or absent.
///
/// Both need time, so both are measured in streams only (the `EpisodeTracker` keeps one per face), from the
/// face's trusted frames (no quality flag but `settling`):
/// - **Eyes closed**: both eyes' closure (`eyeClosure` of each eye) at or above the blink tracker's `closure.on`
///   (40) until the more open one falls below `closure.off` (30); once that has lasted longer than a blink can
///   (`BlinkOptions.maximumDuration`, 0.5 s), the frames are 100 until the eyes open. A blink is never counted;
///   the first half second of a long closure is not either (a frame is judged when it is seen).
/// - **Talking**: speech opens and shuts the mouth several times a second (syllables come at 3-6 per second),
///   while an expression moves it once and holds (a smile, a gasp, a grimace). The mouth's opening (the larger of
///   `mouthOpen` and `jawDrop`) is followed over the last `talkWindow` seconds, and every reversal by at least
///   `swing` points after a move of as much counts; `talkingSwings` or more in the window is talking. Laughter's
///   bursts read as talking too: the doc says so. Absent until a face has been seen for a whole window.
struct ViewerActivity: Sendable, Codable {
    /// The window over which the mouth's reversals are counted, seconds.
    static let talkWindow = 1.5
    /// The least change (points of 0...100) between a peak and a trough that counts as the mouth moving.
    static let swing = 12.0
    /// Reversals in a window from which the face is talking.
    static let talkingSwings = 3

    /// Since when both eyes have been closed (stream seconds), nil while they are open.
    private var closedSince: Double?
    /// The mouth's opening on the face's trusted frames of the last window: (time, opening).
    private var mouth: [Sample] = []
    /// When the face was first seen with a measured mouth.
    private var firstMouth: Double?

    private struct Sample: Sendable, Codable {
        let time: Double
        let opening: Double
    }

    /// Sets `face`'s `eyesClosed` and `talking` for the frame at `time` (seconds), from what the face showed so far.
    mutating func update(_ face: inout FaceResult, at time: Double, blinks: BlinkOptions) {
        // A long closure and the mouth's swings are changes within the face, read as well against a baseline still
        // settling: `settling` alone does not stop them (as with blinks).
        let trusted = face.flags.allSatisfy { $0 == .settling }
        if let expressions = face.expressions, let left = expressions.left[.eyeClosure],
            let right = expressions.right[.eyeClosure]
        {
            face.measures["eyesClosed"] =
                trusted ? eyesClosed(least: min(left, right), at: time, blinks: blinks) : nil
        }
        if let expressions = face.expressions, let open = expressions[.mouthOpen], let jaw = expressions[.jawDrop] {
            face.measures["talking"] = trusted ? talking(opening: max(open, jaw), at: time) : nil
        }
    }

    private mutating func eyesClosed(least closure: Double, at time: Double, blinks: BlinkOptions) -> Double {
        if let since = closedSince {
            if closure < blinks.closure.off { closedSince = nil }
            return closedSince != nil && time - since > blinks.maximumDuration ? 100 : 0
        }
        if closure >= blinks.closure.on { closedSince = time }
        return 0
    }

    private mutating func talking(opening: Double, at time: Double) -> Double? {
        if firstMouth == nil { firstMouth = time }
        mouth.append(Sample(time: time, opening: opening))
        mouth.removeAll { $0.time <= time - Self.talkWindow }
        guard let first = firstMouth, time - first >= Self.talkWindow - 0.05 else { return nil }
        return Self.reversals(in: mouth.map(\.opening)) >= Self.talkingSwings ? 100 : 0
    }

    /// How many times `series` turns back after a move of at least `swing` each way (a peak or trough confirmed
    /// by the move after it).
    static func reversals(in series: [Double]) -> Int {
        guard let first = series.first else { return 0 }
        // Until the first move of a whole swing the direction is unknown: follow both the lowest and highest.
        var (low, high) = (first, first)
        var extreme = first
        var rising: Bool?
        var count = 0
        for value in series.dropFirst() {
            switch rising {
            case nil:
                low = min(low, value)
                high = max(high, value)
                if value - low >= swing {
                    rising = true
                    extreme = value
                } else if high - value >= swing {
                    rising = false
                    extreme = value
                }
            case true?:
                if value > extreme {
                    extreme = value
                } else if extreme - value >= swing {
                    count += 1
                    rising = false
                    extreme = value
                }
            case false?:
                if value < extreme {
                    extreme = value
                } else if value - extreme >= swing {
                    count += 1
                    rising = true
                    extreme = value
                }
            }
        }
        return count
    }
}
