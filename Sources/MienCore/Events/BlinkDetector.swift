/// Finds the blinks and winks of one face from its two eyes' closure (`BlinkOptions`), frame by frame on
/// stream time.
///
/// The closure episode follows the more closed eye, so a blink the model reads unevenly (one eye at 45,
/// the other at 13, as happens on a blink seen at an angle) still counts; each eye's highest closure
/// during the episode then says whether it was both eyes or a wink. A blink is known only once the eyes
/// open again (its duration decides it), so it is reported at its offset.
package struct BlinkDetector: Sendable, Equatable, Codable {
    package let options: BlinkOptions
    private var closure: EpisodeDetector
    /// Each eye's highest closure since the current closure's onset.
    private var peaks: Peaks?

    /// Each eye's highest closure during the open episode.
    private struct Peaks: Sendable, Equatable, Codable {
        var left: Double
        var right: Double
    }

    package init(options: BlinkOptions) {
        self.options = options
        closure = EpisodeDetector(options: options.closure)
    }

    package static func == (left: BlinkDetector, right: BlinkDetector) -> Bool {
        left.options == right.options && left.closure == right.closure && left.peaks?.left == right.peaks?.left
            && left.peaks?.right == right.peaks?.right
    }

    /// The next frame's closure of the person's left and right eyes (0...100; nil when the face could not
    /// be measured); `time` in seconds.
    package mutating func update(left: Double?, right: Double?, at time: Double) -> [Blink] {
        var both: Double?
        if let left, let right {
            both = max(left, right)
            if closure.isOn || both ?? 0 >= options.closure.on {
                let previous = peaks ?? Peaks(left: 0, right: 0)
                peaks = Peaks(left: max(previous.left, left), right: max(previous.right, right))
            }
        }
        return blinks(closure.update(both, at: time))
    }

    /// Ends a closure in progress (the face lost, a cut, the end): a closure cut short is not a blink.
    package mutating func end(at time: Double) {
        _ = closure.end(at: time, because: .ended)
        peaks = nil
    }

    private mutating func blinks(_ changes: [EpisodeDetector.Change]) -> [Blink] {
        var found: [Blink] = []
        for case .finished(let episode) in changes {
            defer { peaks = nil }
            guard episode.duration <= options.maximumDuration + 1e-6, let peaks else { continue }
            let eyes: Blink.Eyes =
                peaks.right < options.openBelow ? .left : peaks.left < options.openBelow ? .right : .both
            found.append(Blink(eyes: eyes, episode: episode))
        }
        return found
    }
}
