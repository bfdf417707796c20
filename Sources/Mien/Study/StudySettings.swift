/// How a study is aggregated (`mien study`'s options), validated at creation.
public struct StudySettings: Sendable, Equatable, Codable {
    /// Width of the time bins, seconds of stimulus time (1 ms steps).
    ///
    /// Default 1 s: Affdex's market-research dashboards plot per second; an expression episode lasts a
    /// second or more, so 1 s bins keep its shape; and at webcam rates (15-30 fps) a bin averages 15-30
    /// frames, which smooths the frame-to-frame noise without a filter.
    public var bin: Double
    /// The least share (0...1) of the stimulus window in which the participant's face must be measured for
    /// the participant to be included.
    public var minimumFaceShare: Double
    /// Seconds two groups must differ (the 95 % interval of the difference excluding 0 in consecutive bins)
    /// for `moments.csv` to list the stretch.
    public var minimumDifference: Double
    /// How far (score points) a peak of a curve must rise above the deeper of the valleys on either side
    /// (topographic prominence) to be a moment.
    public var peakProminence: Double
    /// The most peaks listed per curve, highest first.
    public var peaksPerCurve: Int

    /// The defaults `mien study` uses.
    public static let standard = StudySettings(
        checkedBin: 1, minimumFaceShare: 0.5, minimumDifference: 1, peakProminence: 10, peaksPerCurve: 3)

    /// - Throws: `.invalidArgument` naming the setting out of range.
    public init(
        bin: Double = standard.bin, minimumFaceShare: Double = standard.minimumFaceShare,
        minimumDifference: Double = standard.minimumDifference, peakProminence: Double = standard.peakProminence,
        peaksPerCurve: Int = standard.peaksPerCurve
    ) throws {
        guard bin.isFinite, bin >= 0.001, bin <= 3600 else {
            throw MienError(.invalidArgument, "the bin must be within 0.001...3600 seconds (got \(bin))")
        }
        guard abs((bin * 1000).rounded() - bin * 1000) < 1e-6 else {
            throw MienError(.invalidArgument, "the bin must be a whole number of milliseconds (got \(bin))")
        }
        guard minimumFaceShare.isFinite, (0...1).contains(minimumFaceShare) else {
            throw MienError(.invalidArgument, "the minimum face share must be within 0...1 (got \(minimumFaceShare))")
        }
        guard minimumDifference.isFinite, minimumDifference >= 0 else {
            throw MienError(.invalidArgument, "the minimum difference must be 0 or more seconds")
        }
        guard peakProminence.isFinite, peakProminence >= 0 else {
            throw MienError(.invalidArgument, "the peak prominence must be 0 or more")
        }
        guard peaksPerCurve >= 0 else { throw MienError(.invalidArgument, "peaks per curve must be 0 or more") }
        self.init(
            checkedBin: bin, minimumFaceShare: minimumFaceShare, minimumDifference: minimumDifference,
            peakProminence: peakProminence, peaksPerCurve: peaksPerCurve)
    }

    private init(
        checkedBin bin: Double, minimumFaceShare: Double, minimumDifference: Double, peakProminence: Double,
        peaksPerCurve: Int
    ) {
        self.bin = bin
        self.minimumFaceShare = minimumFaceShare
        self.minimumDifference = minimumDifference
        self.peakProminence = peakProminence
        self.peaksPerCurve = peaksPerCurve
    }

    /// The bin in whole milliseconds: times are compared on the millisecond grid the CSV files are written on,
    /// so a bin holds the same frames whether it is computed here or from the CSV.
    public var binMilliseconds: Int { Int((bin * 1000).rounded()) }
}
