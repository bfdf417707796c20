/// Opt-in re-identification: gives a face that comes back the `faceId` it had before it was lost.
///
/// Sits between the tracker and the results. The tracker numbers its tracks as always; this type decides
/// which ID each track is published under:
/// 1. While a track is new, up to `options.samples` of its good frames (`ReidentificationOptions.admits`:
///    frontal, large enough, inside the frame; then a sharp chip) are described by the recognition network. That is the only
///    cost: once a track has its samples, the network never runs on it again.
/// 2. With no lost face remembered, a new track is published at once under a new ID (no delay, as with
///    re-identification off). Otherwise it is held back until it has its samples or `decisionTime` has
///    passed, then the mean of its descriptors is compared with the lost faces: the nearest within
///    `threshold` gives its ID back (a `.returned` event), anything else a new ID (`.found`). When
///    several new faces are decided at once, the closest pairs are matched first.
/// 3. When a published face is lost, the mean of its descriptors is remembered with the time; after
///    `window` seconds, on `reset()`, or when it comes back, it is forgotten.
///
/// Two faces seen at once never share an ID: only lost faces are candidates, and a face taken back is
/// no longer one.
///
/// - Important: Not thread-safe; one stream per re-identifier, frames in order.
package final class Reidentifier {
    package let options: ReidentificationOptions
    private let recognizer: any FaceRecognizing
    private var gallery = FaceGallery()
    private var tracks: [Int: Track] = [:]
    private var ids: FaceIdAllocator

    /// What re-identification remembers between frames (`snapshot`, `restore(_:)`): the lost faces'
    /// descriptors, the tracks being decided and the next ID.
    package struct State: Sendable, Codable {
        fileprivate var gallery: FaceGallery
        fileprivate var tracks: [Int: Track]
        fileprivate var ids: FaceIdAllocator
    }

    /// The state after the last frame.
    package var snapshot: State { State(gallery: gallery, tracks: tracks, ids: ids) }

    /// Goes on from `snapshot`.
    package func restore(_ snapshot: State) {
        gallery = snapshot.gallery
        tracks = snapshot.tracks
        ids = snapshot.ids
    }

    /// What is known of one tracker track.
    fileprivate struct Track: Sendable, Codable {
        /// When it appeared, seconds.
        let since: Double
        /// Descriptors of its good frames, at most `options.samples`.
        var samples: [FaceDescriptor] = []
        /// The ID it is published under, nil while held back.
        var faceId: Int?
    }

    /// - Parameter firstFaceId: the first ID published (a resumed run's `ResumePoint.nextFaceId`).
    package init(options: ReidentificationOptions, recognizer: any FaceRecognizing, firstFaceId: Int = 0) {
        ids = FaceIdAllocator(startingAt: firstFaceId)
        self.options = options
        self.recognizer = recognizer
    }

    /// Lost faces currently remembered.
    package var remembered: Int { gallery.count }

    /// The tracker's faces and events for `frame`, renamed: faces under their published IDs (held-back
    /// faces left out), ordered by ID, and events in those IDs.
    package func resolve(faces: [TrackedFace], events: [FaceEvent], in frame: Frame) throws -> (
        faces: [TrackedFace], events: [FaceEvent]
    ) {
        let time = frame.timestamp
        var published: [FaceEvent] = []
        for event in events {
            guard case .lost(let trackId) = event, let track = tracks.removeValue(forKey: trackId) else { continue }
            guard let faceId = track.faceId else { continue }  // held back: never seen outside
            published.append(.lost(faceId: faceId))
            if let descriptor = FaceDescriptor.mean(of: track.samples) {
                gallery.remember(faceId, descriptor: descriptor, lostAt: time)
            }
        }
        gallery.forget(before: time - options.window)

        for face in faces {
            var track = tracks[face.faceId] ?? Track(since: time)
            if track.samples.count < options.samples, let descriptor = try describe(face, in: frame) {
                track.samples.append(descriptor)
            }
            tracks[face.faceId] = track
        }
        published += decide(faces.map(\.faceId), at: time)

        let renamed = faces.compactMap { face -> TrackedFace? in
            guard let faceId = tracks[face.faceId]?.faceId else { return nil }
            var face = face
            face.faceId = faceId
            return face
        }
        return (renamed.sorted { $0.faceId < $1.faceId }, published)
    }

    /// Forgets every face, lost or seen, and starts IDs from the first again.
    package func reset() {
        gallery.reset()
        tracks.removeAll()
        ids.reset()
    }

    /// The descriptor of `face` in this frame, or nil when the frame is not good enough.
    private func describe(_ face: TrackedFace, in frame: Frame) throws -> FaceDescriptor? {
        let points = Ibug68Points.points(of: face.mesh)
        guard options.admits(pose: face.pose, ibug68: points, in: frame),
            let transform = RecognitionChip.chipFromFrame(ibug68: points)
        else { return nil }
        let chip = try recognizer.chip(of: frame, chipFromFrame: transform)
        guard ChipSharpness.of(chip) >= options.minimumSharpness else { return nil }
        return try recognizer.descriptor(ofChip: chip)
    }

    /// Publishes the held-back tracks that are due, returning their events.
    private func decide(_ trackIds: [Int], at time: Double) -> [FaceEvent] {
        let due = trackIds.sorted().filter { id in
            guard let track = tracks[id], track.faceId == nil else { return false }
            return gallery.count == 0 || track.samples.count >= options.samples
                || time - track.since >= options.decisionTime
        }
        var candidates: [(trackId: Int, faceId: Int, distance: Double)] = []
        for id in due {
            guard let track = tracks[id], let descriptor = FaceDescriptor.mean(of: track.samples) else { continue }
            for match in gallery.matches(for: descriptor, within: options.threshold) {
                candidates.append((id, match.faceId, match.distance))
            }
        }
        var events: [FaceEvent] = []
        for candidate in candidates.sorted(by: { ($0.distance, $0.trackId) < ($1.distance, $1.trackId) })
        where tracks[candidate.trackId]?.faceId == nil && gallery.contains(candidate.faceId) {
            tracks[candidate.trackId]?.faceId = candidate.faceId
            gallery.remove(candidate.faceId)
            events.append(.returned(faceId: candidate.faceId))
        }
        for id in due where tracks[id]?.faceId == nil {
            let faceId = ids.take()
            tracks[id]?.faceId = faceId
            events.append(.found(faceId: faceId))
        }
        return events
    }
}
