/// The faces lost in the last `window` seconds, by the descriptor each had while it was seen: what a new
/// face is compared with.
///
/// In memory only; `forget(before:)` drops what is older than the window, `reset()` everything.
package struct FaceGallery: Sendable, Codable {
    private var entries: [Int: Entry] = [:]

    private struct Entry: Sendable, Codable {
        var descriptor: FaceDescriptor
        var lostAt: Double
    }

    package init() {}

    /// Lost faces remembered.
    package var count: Int { entries.count }

    /// Remembers that face `faceId`, described by `descriptor`, was lost at `time` (seconds).
    package mutating func remember(_ faceId: Int, descriptor: FaceDescriptor, lostAt time: Double) {
        entries[faceId] = Entry(descriptor: descriptor, lostAt: time)
    }

    /// Forgets faces lost before `time`.
    package mutating func forget(before time: Double) {
        entries = entries.filter { $0.value.lostAt >= time }
    }

    /// Whether face `faceId` is remembered.
    package func contains(_ faceId: Int) -> Bool { entries[faceId] != nil }

    /// Forgets face `faceId` (it is back, and an ID is never given to two faces).
    package mutating func remove(_ faceId: Int) {
        entries[faceId] = nil
    }

    /// Forgets every face.
    package mutating func reset() {
        entries.removeAll()
    }

    /// Every remembered face within `threshold` of `descriptor`, nearest first (ties by ID).
    package func matches(for descriptor: FaceDescriptor, within threshold: Double) -> [(faceId: Int, distance: Double)]
    {
        entries.map { (faceId: $0.key, distance: $0.value.descriptor.distance(to: descriptor)) }
            .filter { $0.distance <= threshold }
            .sorted { ($0.distance, $0.faceId) < ($1.distance, $1.faceId) }
    }
}
