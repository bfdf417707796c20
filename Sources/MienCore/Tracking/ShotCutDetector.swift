/// Finds shot cuts in a stream: a frame whose colours, region by region, differ from the previous analysed
/// frame's by at least `threshold`.
///
/// The measure is the one histogram-based shot-boundary detectors use, made local: the frame is divided
/// into 4 x 4 regions, each region's colours are counted in 8 bins per channel (on at most 64 x 36 sampled
/// pixels, so the cost does not grow with the frame), and the distance between two frames is the mean over
/// the regions of half the L1 distance between their histograms (0: the same colours in the same places,
/// 1: nothing in common). Motion within a shot moves few regions' colours; a cut changes most of them,
/// even between two faces at the same place in the frame (their hair, skin and background differ).
///
/// The threshold was chosen on the evaluation data (the `events.shot_cuts` section of `make eval`): the 1,167
/// frame pairs within shots of the development videos reach at most 0.087 (a talking head blinking and
/// turning), while their 4 hand-labelled cuts measure 0.73–0.87, joins of different videos 0.53–0.92, and
/// two different people photographed with the same framing, light and background (yalefaces) 0.147–0.52.
/// 0.12 lies between the two groups.
package struct ShotCutDetector: Sendable, Codable {
    /// The distance (0...1) at which a frame is a cut.
    package let threshold: Double
    private var previous: [Float]?

    /// The default threshold (see the type's documentation for how it was chosen).
    package static let defaultThreshold = 0.12

    static let regions = 4
    static let bins = 8
    private static let samplesAcross = 64
    private static let samplesDown = 36

    /// - Throws: `.invalidOptions` unless `threshold` is in 0...1 (exclusive of 0).
    package init(threshold: Double = ShotCutDetector.defaultThreshold) throws {
        guard threshold > 0, threshold <= 1 else {
            throw MienError(.invalidOptions, "a shot-cut threshold must be in 0...1 (above 0), got \(threshold)")
        }
        self.threshold = threshold
    }

    /// Whether `frame` starts a new shot (never for the first frame); remembers it for the next call.
    package mutating func isCut(_ frame: Frame) -> Bool {
        let signature = Self.signature(of: frame)
        defer { previous = signature }
        guard let previous else { return false }
        return Self.distance(previous, signature) >= threshold
    }

    /// Forgets the previous frame (a reset, a new input).
    package mutating func reset() { previous = nil }

    /// The regional colour histograms of `frame`, each region's normalised to sum 1 per channel.
    package static func signature(of frame: Frame) -> [Float] {
        let perRegion = 3 * bins
        var histogram = [Float](repeating: 0, count: regions * regions * perRegion)
        let across = min(samplesAcross, frame.width)
        let down = min(samplesDown, frame.height)
        var counts = [Float](repeating: 0, count: regions * regions)
        frame.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<down {
                let y = (row * 2 + 1) * frame.height / (down * 2)
                let regionRow = row * regions / down
                for column in 0..<across {
                    let x = (column * 2 + 1) * frame.width / (across * 2)
                    let region = regionRow * regions + column * regions / across
                    let offset = y * frame.stride + x * Frame.channels
                    let base = region * perRegion
                    for channel in 0..<3 {
                        histogram[base + channel * bins + Int(pixels[offset + channel]) * bins / 256] += 1
                    }
                    counts[region] += 1
                }
            }
        }
        for region in 0..<(regions * regions) where counts[region] > 0 {
            for bin in 0..<perRegion { histogram[region * perRegion + bin] /= counts[region] }
        }
        return histogram
    }

    /// The distance (0...1) between two signatures: the regions' mean half-L1 distance, over the channels.
    package static func distance(_ a: [Float], _ b: [Float]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 1 }
        var total: Float = 0
        for index in a.indices { total += abs(a[index] - b[index]) }
        // Each region's channel histograms sum to 1: half their L1 distance is 0...1; 3 channels, 16 regions.
        return Double(total) / 2 / 3 / Double(regions * regions)
    }
}
