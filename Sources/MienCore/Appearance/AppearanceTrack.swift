/// Appearance aggregated over one face's track: running means of the per-frame measurements, so one
/// odd frame (a turned head, motion blur) cannot flip the person's gender or glasses.
package struct AppearanceTrack: Sendable, Codable {
    private var maleSum = 0.0
    private var ageSum = 0.0
    private var glassesSum = 0.0
    private var darknessSum = 0.0
    private var count = 0.0

    /// Frames after which the aggregate is settled and no longer updated.
    ///
    /// 15: at Affdex's default 5 fps
    /// that is 3 s of a face, and the mean of 15 frames moves by less than the models' frame-to-frame
    /// noise; it saves the 3 ms the two networks cost per face and frame from then on.
    package static let settledFrames = 15

    package init() {}

    /// Frames aggregated so far.
    package var frames: Int { Int(count) }

    /// Adds one frame's measurements and returns the aggregate.
    package mutating func add(maleProbability: Double, age: Double, glasses: GlassesEvidence) -> Appearance {
        maleSum += maleProbability
        ageSum += age
        glassesSum += glasses.score
        darknessSum += glasses.lensDarkness
        count += 1
        return mean
    }

    private var mean: Appearance {
        Appearance(
            maleProbability: maleSum / count, age: ageSum / count, glassesEvidence: glassesSum / count,
            lensDarkness: darknessSum / count)
    }

    /// The aggregate so far, or nil before the first frame.
    package var current: Appearance? {
        count > 0 ? mean : nil
    }
}
