import RealModule

/// Image evidence of glasses on a face, read from the pixels the mesh locates (no glasses model ships in
/// a registry package, so this is hand-built and its threshold chosen on the dev data).
///
/// Three cues, each scale-free:
/// - **bridge**: a frame's bridge crosses the nose between the eyes as a horizontal bar. Along a
///   vertical line from the brows' midpoint down the nose to below the eye line, the strongest
///   brightness step, divided by the mean step along the same line on the lower nose (smooth skin).
/// - **rims**: the lower rims run under the eyes. Along vertical lines from each lower lid down to the
///   cheek, the strongest step, divided by the same smooth-skin step.
/// - **dark lenses**: sunglasses make the eye region much darker than the cheeks: 1 − (eye-region
///   brightness / cheek brightness), 0 when the eyes are as bright as the cheeks.
public struct GlassesEvidence: Sendable, Equatable {
    /// Strongest step across the nose bridge over the smooth-skin step.
    public var bridge: Double
    /// Strongest step below the eyes over the smooth-skin step.
    public var rims: Double
    /// 0 (eyes as bright as cheeks) ... 1 (black lenses).
    ///
    public var darkLenses: Double

    public init(bridge: Double, rims: Double, darkLenses: Double) {
        self.bridge = bridge
        self.rims = rims
        self.darkLenses = darkLenses
    }

    /// Samples per measured line.
    static let samples = 24

    /// Measures the face with the 478 mesh `points` (frame pixels) in `frame`; nil without irises.
    public init?(points: [Point3D], in frame: Frame) {
        guard points.count >= FaceLandmark.count else { return nil }
        func p(_ i: Int) -> Point { points[i].xy }
        func luma(_ q: Point) -> Double {
            let x = min(frame.width - 1, max(0, Int(q.x.rounded())))
            let y = min(frame.height - 1, max(0, Int(q.y.rounded())))
            let o = y * frame.stride + x * Frame.channels
            return 0.114 * Double(frame.pixels[o]) + 0.587 * Double(frame.pixels[o + 1])
                + 0.299 * Double(frame.pixels[o + 2])
        }
        /// Absolute brightness steps between consecutive samples from `a` to `b`.
        func steps(_ a: Point, _ b: Point) -> [Double] {
            let values = (0...Self.samples).map { k -> Double in
                let t = Double(k) / Double(Self.samples)
                return luma(Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t))
            }
            return zip(values.dropFirst(), values).map { abs($0 - $1) }
        }
        // Smooth skin: the lower nose, from the nose tip's top (mesh 195) to the tip (1).
        let skin = max(1, steps(p(195), p(1)).reduce(0, +) / Double(Self.samples))
        // Bridge line: from between the brows (9) down to the lower bridge (197).
        bridge = (steps(p(9), p(197)).max() ?? 0) / skin
        // Rims: from each lower lid centre (145, 374) down to the cheek (101, 330).
        rims = max(steps(p(145), p(101)).max() ?? 0, steps(p(374), p(330)).max() ?? 0) / skin
        // Eye region (around both irises and eye corners) against the cheeks (50, 280, 101, 330).
        let eyes = [468, 473, 33, 133, 263, 362, 159, 386].map { luma(p($0)) }
        let cheeks = [50, 280, 101, 330, 205, 425].map { luma(p($0)) }
        let eyeMean = eyes.reduce(0, +) / Double(eyes.count)
        let cheekMean = max(1, cheeks.reduce(0, +) / Double(cheeks.count))
        darkLenses = max(0, 1 - eyeMean / cheekMean)
    }
}
