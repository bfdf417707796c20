/// Hands out face IDs: the one place a `faceId` is minted.
///
/// Counts up from `first` (0 for a new run; a resumed run starts where the earlier one stopped, so its
/// IDs never clash with the ones already reported and nothing has to be renumbered afterwards).
package struct FaceIdAllocator: Sendable, Equatable, Codable {
    /// The first ID handed out, and the one handed out again after `reset()`.
    package let first: Int
    private var next: Int

    /// - Parameter first: the first ID handed out (at least 0).
    package init(startingAt first: Int = 0) {
        self.first = max(0, first)
        next = self.first
    }

    /// The next unused ID.
    package mutating func take() -> Int {
        defer { next += 1 }
        return next
    }

    /// Starts again from `first` (Affdex `reset`: IDs count afresh).
    package mutating func reset() { next = first }
}
