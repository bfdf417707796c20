/// Image evidence of glasses on a face, read from the pixels the mesh locates (no glasses model ships in
/// a registry package, so this is hand-built and its threshold chosen on the dev data).
///
/// The cue is the frame's bridge, which crosses the nose between the eyes as a narrow horizontal bar (on
/// eyeglasses and sunglasses alike). Along a vertical line from between the brows down the nose bridge
/// it is measured twice, each divided by the mean step along the lower nose (smooth skin) on the same
/// sampling, so neither depends on contrast or size:
/// - `bridge`, the strongest brightness step (nearest-pixel samples, which keep a thin frame's edge
///   sharp);
/// - `bar`, the strongest *bar*: a sample brighter (or darker) than the samples 2 steps before and after
///   it (bilinear samples). A brow ridge's shadow on a head bowed toward the camera makes a single
///   step, which raises `bridge` but not `bar`.
/// Their product `score` is the evidence (`Appearance.glassesThreshold`).
///
/// A dark lens whose bridge the line misses (a thin metal bridge, a frame pushed up or down the nose) is
/// caught by `lensDarkness`: the skin of the cheeks and nose over the brightest part of the eyes'
/// openings, the whites, which a dark lens hides (`Appearance.lensDarknessThreshold`).
///
/// Person-wise cross-validated accuracy on the dev data is in `make eval` (`affect.glasses.cross_validated`).
/// Cues measured and left out: steps along the lower rims below the eyes (AUC 0.34-0.67: eyelids and eye
/// bags make the same steps), the whole eye region's darkness (AUC 0.20: an open eye is dark anyway), the
/// skin just below the eyes (deep-set eyes and dark circles shade it like a lens: 7 of 1,650 unlabelled
/// UTKFace and muxspace faces without glasses reached its threshold, and refitted without a deep-set
/// Pointing'04 person it fell low enough to call his faces glasses) and steps from the outer eye corners
/// to the temples (AUC 0.58 on Pointing'04).
package struct GlassesEvidence: Sendable, Equatable {
    /// Strongest step across the nose bridge over the smooth-skin step (about 3 without glasses, 10 and
    /// more with them).
    package var bridge: Double
    /// Strongest narrow bar across the nose bridge over the smooth-skin step (about 1 without glasses).
    package var bar: Double

    /// The skin's median brightness on the cheeks and nose over the brightest tenth of the brighter eye's
    /// opening (at most 2.6 on the dev data's faces without glasses, 5 and more behind dark lenses).
    package var lensDarkness: Double

    package init(bridge: Double, bar: Double, lensDarkness: Double) {
        self.bridge = bridge
        self.bar = bar
        self.lensDarkness = lensDarkness
    }

    /// The evidence: `bridge` x `bar` (median 3.9 on the dev data's faces without glasses, 119 with).
    package var score: Double { bridge * bar }

    /// Samples per measured line.
    static let samples = 24
    /// How many samples away the two sides of a bar are compared (1/12 of the line: about a frame
    /// bridge's width on the dev data's faces).
    static let barReach = 2

    /// Each eye's outer and inner corner (mesh points): the line between them crosses the whites.
    static let eyeCorners = [(33, 133), (263, 362)]
    /// Where along that line the whites are read: the brightest tenth, above the iris, lashes and corners.
    static let whitesQuantile = 0.9
    /// Mesh points on skin no lens covers: the cheeks and the nose.
    static let skinPoints = [205, 425, 36, 266, 50, 280, 195, 5, 4]
    /// The lowest brightness a ratio is divided by (luma, 0...255), so a black lens gives a finite ratio.
    static let darknessFloor = 4.0

    /// Measures the face with the 468 (or 478) mesh `points` (frame pixels) in `frame`; nil for a
    /// degenerate mesh.
    package init?(points: [Point3D], in frame: Frame) {
        guard points.count >= FaceLandmark.meshPointCount else { return nil }
        // Smooth skin: the lower nose, from mesh point 195 down to the tip (1). Bridge line: from
        // between the brows (9) down to the lower bridge (197).
        let (skinLine, bridgeLine) = ((points[195].xy, points[1].xy), (points[9].xy, points[197].xy))
        func meanStep(_ values: [Double]) -> Double {
            max(1, zip(values.dropFirst(), values).reduce(0) { $0 + abs($1.0 - $1.1) } / Double(Self.samples))
        }
        let nearest = Self.profile(bridgeLine, in: frame, bilinear: false)
        bridge =
            (zip(nearest.dropFirst(), nearest).map { abs($0 - $1) }.max() ?? 0)
            / meanStep(Self.profile(skinLine, in: frame, bilinear: false))
        let smooth = Self.profile(bridgeLine, in: frame, bilinear: true)
        bar =
            Self.strongestBar(smooth, reach: Self.barReach)
            / meanStep(Self.profile(skinLine, in: frame, bilinear: true))
        func medianLuma(_ indices: [Int]) -> Double {
            let values = indices.map { frame.interpolatedLuma(at: points[$0].xy) }.sorted()
            return values[values.count / 2]
        }
        let whites = Self.eyeCorners.map { corners in
            let values = Self.profile((points[corners.0].xy, points[corners.1].xy), in: frame, bilinear: true).sorted()
            return values[Int(Self.whitesQuantile * Double(values.count))]
        }
        lensDarkness = medianLuma(Self.skinPoints) / max(whites.max() ?? 0, Self.darknessFloor)
    }

    /// The largest `min(|v[i] - v[i - reach]|, |v[i] - v[i + reach]|)` over samples that differ from both
    /// sides in the same direction (a bar, not an edge); 0 when there is none.
    static func strongestBar(_ values: [Double], reach: Int) -> Double {
        guard values.count > 2 * reach else { return 0 }
        var best = 0.0
        for i in reach..<(values.count - reach) {
            let before = values[i] - values[i - reach]
            let after = values[i] - values[i + reach]
            if before * after > 0 { best = max(best, min(abs(before), abs(after))) }
        }
        return best
    }

    /// `samples + 1` brightness values (luma, 0...255) evenly spaced from `line.0` to `line.1`.
    static func profile(_ line: (Point, Point), in frame: Frame, bilinear: Bool) -> [Double] {
        let (from, to) = line
        return (0...samples).map { k in
            let t = Double(k) / Double(samples)
            let p = Point(x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t)
            return bilinear ? frame.interpolatedLuma(at: p) : frame.luma(x: Int(p.x.rounded()), y: Int(p.y.rounded()))
        }
    }
}
