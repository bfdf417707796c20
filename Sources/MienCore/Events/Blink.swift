/// One blink or wink: when the eyes closed, were most closed and opened again.
///
/// Times are seconds on the stream's clock.
package struct Blink: Sendable, Equatable, Codable {
    /// Which eyes closed.
    package enum Eyes: String, Sendable, Codable {
        /// Both eyes: a blink.
        case both
        /// The person's left eye alone: a wink.
        case left
        /// The person's right eye alone: a wink.
        case right
    }

    /// Which eyes closed.
    package var eyes: Eyes
    /// The closure: onset, apex (the more closed eye's highest closure), offset; it always ends `fell`.
    package var episode: Episode

    package init(eyes: Eyes, episode: Episode) {
        self.eyes = eyes
        self.episode = episode
    }
}
