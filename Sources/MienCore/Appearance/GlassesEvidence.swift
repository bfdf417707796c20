import RealModule

/// Image evidence of glasses on a face, read from the pixels the mesh locates (no glasses model ships in
/// a registry package, so this is hand-built and its threshold chosen on the dev data).
///
/// The cue is the frame's bridge, which crosses the nose between the eyes as a horizontal bar (on
/// eyeglasses and sunglasses alike): along a vertical line from between the brows down the nose bridge,
/// the strongest brightness step, divided by the mean step along the lower nose (smooth skin), so it
/// does not depend on contrast or size. ROC-AUC on the dev data: 0.98 on yalefaces, 0.96 on
/// Pointing'04 (|pan|, |tilt| ≤ 30°). Two more cues were measured and left out: steps along the lower
/// rims below the eyes (AUC 0.34-0.67: eyelids and eye bags make the same steps) and the eye region's
/// darkness against the cheeks (AUC 0.20: an open eye is dark anyway).
public struct GlassesEvidence: Sendable, Equatable {
    /// Strongest step across the nose bridge over the smooth-skin step (about 3 without glasses, 10 and
    /// more with them).
    public var bridge: Double

    public init(bridge: Double) { self.bridge = bridge }

    /// Samples per measured line.
    static let samples = 24

    /// Measures the face with the 468 (or 478) mesh `points` (frame pixels) in `frame`; nil for a
    /// degenerate mesh.
    public init?(points: [Point3D], in frame: Frame) {
        guard points.count >= FaceLandmark.meshPointCount else { return nil }
        func luma(_ q: Point) -> Double {
            let x = min(frame.width - 1, max(0, Int(q.x.rounded())))
            let y = min(frame.height - 1, max(0, Int(q.y.rounded())))
            let o = y * frame.stride + x * Frame.channels
            return 0.114 * Double(frame.pixels[o]) + 0.587 * Double(frame.pixels[o + 1])
                + 0.299 * Double(frame.pixels[o + 2])
        }
        /// Absolute brightness steps between consecutive samples from mesh point `a` to mesh point `b`.
        func steps(_ a: Int, _ b: Int) -> [Double] {
            let (from, to) = (points[a].xy, points[b].xy)
            let values = (0...Self.samples).map { k -> Double in
                let t = Double(k) / Double(Self.samples)
                return luma(Point(x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t))
            }
            return zip(values.dropFirst(), values).map { abs($0 - $1) }
        }
        // Smooth skin: the lower nose, from mesh point 195 down to the tip (1). Bridge line: from
        // between the brows (9) down to the lower bridge (197).
        let skin = max(1, steps(195, 1).reduce(0, +) / Double(Self.samples))
        bridge = (steps(9, 197).max() ?? 0) / skin
    }
}
