/// The emotion and appearance stage: fuses the emotion CNN with the expressions, and estimates gender,
/// age and glasses, aggregated over each face's track in streams.
///
/// Runs after the expression stage (emotions read the baseline-corrected expressions). Appearance is
/// learnt only from frames without quality flags once a track has one such frame, so a face turned away
/// cannot drag the aggregate; a track's first frames are used whatever their flags. After
/// `AppearanceTrack.settledFrames` frames a track's appearance is settled and its networks stop running.
///
/// - Important: Not thread-safe; one stream per stage.
package final class AffectStage {
    private let emotionClassifier: (any EmotionClassifying)?
    private let appearanceClassifier: (any AppearanceClassifying)?
    private let scoresEmotions: Bool
    private let fusion = EmotionFusion()
    private var tracks = PerFaceMemory<AppearanceTrack>()
    private var emotionViews = PerFaceMemory<EmotionViewWindow>()

    /// What the stage remembers per face between frames (`snapshot`, `restore(_:)`).
    package struct State: Sendable, Codable {
        fileprivate var tracks: PerFaceMemory<AppearanceTrack>
        fileprivate var emotionViews: PerFaceMemory<EmotionViewWindow>
    }

    /// The state after the last frame.
    package var snapshot: State { State(tracks: tracks, emotionViews: emotionViews) }

    /// Goes on from `snapshot`.
    package func restore(_ snapshot: State) {
        tracks = snapshot.tracks
        emotionViews = snapshot.emotionViews
    }

    /// - Parameters:
    ///   - emotions: whether to score emotions; `cnn` is fer's CNN (nil: rules only).
    ///   - appearance: the gender and age networks, or nil for no appearance.
    package init(emotions: Bool, cnn: (any EmotionClassifying)?, appearance: (any AppearanceClassifying)?) {
        scoresEmotions = emotions
        emotionClassifier = cnn
        appearanceClassifier = appearance
    }

    /// Adds emotions (when enabled and the face has expressions) and appearance (when enabled) to `face`.
    package func measure(_ face: TrackedFace, in frame: Frame, stream: Bool) throws -> TrackedFace {
        var face = face
        let points = face.mesh.points
        if scoresEmotions, let expressions = face.expressions {
            var cnn: [Double]?
            if let classifier = emotionClassifier {
                if stream {
                    // One view per frame, in turn; the window averages the latest of each view.
                    let count = classifier.viewCount(in: frame, points: points)
                    var window = emotionViews[face.faceId] ?? EmotionViewWindow()
                    let view = window.nextView(of: count)
                    let scores = try classifier.probabilities(in: frame, points: points, view: view)
                    cnn = window.add(scores, view: view, viewCount: count)
                    emotionViews[face.faceId] = window
                } else {
                    cnn = try classifier.probabilities(in: frame, points: points)
                }
            }
            face.emotions = fusion.emotions(cnn: cnn, expressions: expressions)
        }
        if let appearanceClassifier {
            var track = stream ? tracks[face.faceId] ?? AppearanceTrack() : AppearanceTrack()
            if track.frames >= AppearanceTrack.settledFrames || (track.frames > 0 && !face.flags.isEmpty) {
                // Settled (the means no longer move, the networks need not run again for this face), or a
                // flagged frame that must not move them.
                face.appearance = track.current
            } else if let glasses = GlassesEvidence(points: points, in: frame) {
                face.appearance = track.add(
                    maleProbability: try appearanceClassifier.maleProbability(in: frame, points: points),
                    age: try appearanceClassifier.age(in: frame, points: points), glasses: glasses)
                if stream { tracks[face.faceId] = track }
            }
        }
        return face
    }

    /// Keeps the tracks of `faceIds` (the frame's faces, before they are measured); see
    /// `PerFaceMemory.keep(only:at:retainingFor:)`.
    package func keep(only faceIds: Set<Int>, at time: Double, retainingFor retention: Double?) {
        tracks.keep(only: faceIds, at: time, retainingFor: retention)
        emotionViews.keep(only: faceIds, at: time, retainingFor: retention)
    }

    /// Forgets every track.
    package func reset() {
        tracks.reset()
        emotionViews.reset()
    }
}
