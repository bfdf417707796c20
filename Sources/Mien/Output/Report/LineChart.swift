package import MienCore

/// The geometry of one SVG line chart: series of samples mapped into a plot area, axis ticks and a
/// legend, ready for the report template (which only places the strings).
///
/// Coordinates are SVG user units: x grows right, y grows down, the plot area starts at (`left`, `top`).
package struct LineChart: Sendable {
    /// One line of the chart.
    package struct Series: Sendable {
        /// The legend's name of the line (a metric).
        package var name: String
        /// CSS colour.
        package var colour: String
        /// The points, oldest first: time in seconds, value in the metric's units.
        package var samples: [Timeline.Sample]

        /// A line named `name`, drawn in CSS colour `colour` through `samples`.
        package init(name: String, colour: String, samples: [Timeline.Sample]) {
            self.name = name
            self.colour = colour
            self.samples = samples
        }
    }

    /// A drawn line: its SVG `points` attribute, one string per unbroken run (gaps in time break it).
    package struct Path: Sendable {
        /// The legend's name of the line.
        package var name: String
        /// CSS colour.
        package var colour: String
        /// SVG `points` attributes, one per unbroken run.
        package var runs: [String]
        /// A single-sample run is drawn as a dot: its centres.
        package var dots: [Point]
        /// Runs drawn dashed and thinner (a study's bins with too few participants), SVG `points` attributes.
        package var dashedRuns: [String] = []
        /// Stroke width of the runs, SVG user units, as the attribute says it.
        package var strokeWidth = "1.6"
        /// Radius of the dots, SVG user units, as the attribute says it.
        package var dotRadius = "3"
    }

    /// An axis label at a position along the axis.
    package struct Tick: Sendable {
        /// SVG user units along the axis (x from the left edge, y from the top).
        package var position: Double
        /// The text shown at the tick.
        package var label: String
    }

    /// Width of the whole chart, SVG user units.
    package static let width = 640.0
    /// Height of the whole chart, SVG user units.
    package static let height = 170.0
    /// Margin left of the plot area (for the y labels), SVG user units.
    package static let left = 42.0
    /// Margin right of the plot area, SVG user units.
    package static let right = 10.0
    /// Margin above the plot area, SVG user units.
    package static let top = 8.0
    /// Margin below the plot area (for the x labels), SVG user units.
    package static let bottom = 22.0

    /// The chart's heading (the face and what is drawn).
    package var title: String
    /// The drawn lines, one per series.
    package var paths: [Path]
    /// Time labels along the x axis (seconds).
    package var xTicks: [Tick]
    /// Value labels along the y axis.
    package var yTicks: [Tick]
    /// Where y = 0 sits when the range crosses zero (valence), else nil.
    package var zeroLine: Double?
    /// Episodes of the charted metrics, behind the lines (`Episodes`: in lanes, one per metric).
    package var bands: [Band] = []
    /// Fill opacity of the bands.
    package var bandOpacity = 0.22
    /// Filled outlines behind the lines.
    package var areas: [Area] = []
    /// Rings over the lines.
    package var markers: [Marker] = []
    /// Strokes under the plot.
    package var spans: [Span] = []
    /// Vertical lines across the plot, named.
    package var rules: [Rule] = []
    /// The value axis's title, written up its side (empty: none).
    package var yLabel = ""
    /// The chart's height, SVG user units (taller for many lanes).
    package var height = LineChart.height
    /// Margin left of the plot area, SVG user units (wider for the lanes' metric names).
    package var left = LineChart.left

    /// A gap between samples longer than this many times the typical step starts a new run.
    static let gapFactor = 5.0

    /// One episode to draw: its metric, times (seconds) and colour.
    package struct Episode: Sendable {
        package var metric: String
        package var onset: Double
        package var offset: Double
        package var colour: String

        package init(metric: String, onset: Double, offset: Double, colour: String) {
            self.metric = metric
            self.onset = onset
            self.offset = offset
            self.colour = colour
        }
    }

    /// Lays out `series` over `timeRange` (seconds) and `valueRange` (the metric's fixed scale), with
    /// `episodes` as bands the plot's height behind the lines.
    package init(
        title: String, series: [Series], timeRange: ClosedRange<Double>, valueRange: ClosedRange<Double>,
        episodes: [Episode] = []
    ) {
        self.title = title
        let scale = Scale(timeRange: timeRange, valueRange: valueRange)
        let x = scale.x
        let y = scale.y

        paths = series.map { s in
            let steps = zip(s.samples.dropFirst(), s.samples).map { $0.time - $1.time }.sorted()
            let typical = steps.isEmpty ? 0 : steps[steps.count / 2]
            var runs: [[Timeline.Sample]] = []
            for sample in s.samples {
                if let last = runs.last?.last, sample.time - last.time <= max(typical * Self.gapFactor, 1e-9) {
                    runs[runs.count - 1].append(sample)
                } else {
                    runs.append([sample])
                }
            }
            let lines = runs.filter { $0.count > 1 }.map { run in scale.points(run.map { ($0.time, $0.value) }) }
            let dots = runs.filter { $0.count == 1 }.map { Point(x: x($0[0].time), y: y($0[0].value)) }
            return Path(name: s.name, colour: s.colour, runs: lines, dots: dots)
        }
        xTicks = scale.xTicks
        yTicks = scale.yTicks
        zeroLine = valueRange.contains(0) && valueRange.lowerBound < 0 ? y(0) : nil
        bands = episodes.map { episode in
            Self.band(episode, timeRange: timeRange, top: Self.top, height: scale.plotHeight)
        }
    }

    /// A chart laid out by its caller (a study's curves) on `scale`: the ticks are the scale's.
    package init(
        title: String, scale: Scale, paths: [Path], bands: [Band], areas: [Area], markers: [Marker], spans: [Span]
    ) {
        self.title = title
        self.paths = paths
        xTicks = scale.xTicks
        yTicks = scale.yTicks
        zeroLine = scale.valueRange.contains(0) && scale.valueRange.lowerBound < 0 ? scale.y(0) : nil
        self.bands = bands
        self.areas = areas
        self.markers = markers
        self.spans = spans
    }

    /// Episodes in lanes, one per metric (the metrics in `order`'s order), over `timeRange` (seconds): when each
    /// expression, emotion or blink was on.
    package init(lanes title: String, episodes: [Episode], order: [String], timeRange: ClosedRange<Double>) {
        self.title = title
        let lane = 16.0
        let left = Self.laneLeft
        self.left = left
        height = Self.top + Double(max(order.count, 1)) * lane + Self.bottom
        paths = []
        xTicks = Self.niceTicks(timeRange, count: 6).map { t in
            let span = max(timeRange.upperBound - timeRange.lowerBound, 1e-6)
            return Tick(
                position: left + (t - timeRange.lowerBound) / span * (Self.width - left - Self.right),
                label: Self.timeLabel(t))
        }
        yTicks = order.enumerated().map {
            Tick(position: Self.top + (Double($0.offset) + 0.5) * lane, label: $0.element)
        }
        zeroLine = nil
        let rows = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($0.element, $0.offset) })
        bands = episodes.compactMap { episode in
            guard let row = rows[episode.metric] else { return nil }
            return Self.band(
                episode, timeRange: timeRange, left: left, top: Self.top + Double(row) * lane + 2, height: lane - 4)
        }
    }

    /// The lanes' left margin: room for `expressions.innerBrowRaise`.
    static let laneLeft = 150.0

    private static func band(
        _ episode: Episode, timeRange: ClosedRange<Double>, left: Double = LineChart.left, top: Double, height: Double
    ) -> Band {
        let span = max(timeRange.upperBound - timeRange.lowerBound, 1e-6)
        let plotWidth = width - left - right
        let start = left + (max(episode.onset, timeRange.lowerBound) - timeRange.lowerBound) / span * plotWidth
        let end = left + (min(episode.offset, timeRange.upperBound) - timeRange.lowerBound) / span * plotWidth
        // A blink of one frame is still visible: at least 1.5 units wide.
        return Band(
            label: "\(episode.metric) \(timeLabel(episode.onset))–\(timeLabel(episode.offset))",
            colour: episode.colour, x: start, y: top, width: max(end - start, 1.5), height: height)
    }

    /// Round tick values (1, 2 or 5 × 10ⁿ apart) covering `range`.
    static func niceTicks(_ range: ClosedRange<Double>, count: Int) -> [Double] {
        let span = range.upperBound - range.lowerBound
        guard span > 0, count > 0 else { return [range.lowerBound] }
        let raw = span / Double(count)
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
        let first = (range.lowerBound / step).rounded(.up) * step
        return stride(from: first, through: range.upperBound + step * 1e-9, by: step).map { $0 }
    }

    /// "12 s", "1:05" or "1:02:03".
    package static func timeLabel(_ seconds: Double) -> String {
        let whole = Int(saturating: seconds)
        if abs(seconds - seconds.rounded()) > 1e-6 && seconds < 10 {
            return String(Double(Int(saturating: seconds * 10)) / 10) + " s"
        }
        if whole < 60 { return "\(whole) s" }
        let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}
