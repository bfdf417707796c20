/// Per-face state of a stage (a neutral baseline, appearance averages) keyed by `faceId`, for the faces
/// of the current frame, and, with re-identification, for lost faces that may come back.
///
/// `keep(only:at:retainingFor:)` runs once per frame, before the frame's faces are measured: state of faces
/// no longer seen is dropped, or with a retention time parked; a parked face seen again (re-identified
/// under its old ID) gets its state back; parked state older than the retention time is dropped.
package struct PerFaceMemory<State: Sendable>: Sendable {
    private var active: [Int: State] = [:]
    private var parked: [Int: Parked] = [:]

    /// A lost face's state and when it was lost.
    fileprivate struct Parked: Sendable {
        var state: State
        var since: Double
    }

    package init() {}

    /// The state of face `faceId` in the current frame (nil before its first measurement).
    package subscript(faceId: Int) -> State? {
        get { active[faceId] }
        set { active[faceId] = newValue }
    }

    /// The state of every face, seen or parked.
    package var states: [State] { Array(active.values) + parked.values.map(\.state) }

    /// Faces with state, seen or parked.
    package var count: Int { active.count + parked.count }

    /// Keeps the state of `faceIds` (the current frame's faces) at `time` seconds.
    /// - Parameter retention: seconds a lost face's state is kept for its return; nil drops it at once.
    package mutating func keep(only faceIds: Set<Int>, at time: Double, retainingFor retention: Double?) {
        for (faceId, state) in active where !faceIds.contains(faceId) {
            active[faceId] = nil
            if retention != nil { parked[faceId] = Parked(state: state, since: time) }
        }
        for faceId in faceIds {
            if let back = parked.removeValue(forKey: faceId) { active[faceId] = back.state }
        }
        if let retention {
            parked = parked.filter { time - $0.value.since <= retention }
        } else {
            parked.removeAll()
        }
    }

    /// Forgets every face.
    package mutating func reset() {
        active.removeAll()
        parked.removeAll()
    }
}

extension PerFaceMemory: Codable where State: Codable {}
extension PerFaceMemory.Parked: Codable where State: Codable {}
