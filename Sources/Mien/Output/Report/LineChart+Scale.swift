/// The parts of a `LineChart` its caller lays out itself (a study's bands, peaks and responses) and the scale
/// both kinds of chart map times and values with.
extension LineChart {
    /// A filled outline behind the lines (a study's 95 % band), SVG `points` attribute.
    package struct Area: Sendable {
        package var points: String
        package var colour: String

        package init(points: String, colour: String) {
            (self.points, self.colour) = (points, colour)
        }
    }

    /// A ring around a point on a line (a study's peak), with what its tooltip says.
    package struct Marker: Sendable {
        package var label: String
        package var colour: String
        package var x: Double
        package var y: Double

        package init(label: String, colour: String, x: Double, y: Double) {
            (self.label, self.colour, self.x, self.y) = (label, colour, x, y)
        }
    }

    /// A vertical line across the plot at `x` with its name above it (a study's mark: the brand, the offer).
    package struct Rule: Sendable {
        package var label: String
        package var x: Double
        package var top: Double
        package var bottom: Double
        /// Where the name is written: right of the line, or left of it near the plot's right edge.
        package var textX: Double
        package var anchor: String

        package init(label: String, x: Double, top: Double, bottom: Double, textX: Double, anchor: String) {
            (self.label, self.x, self.top, self.bottom) = (label, x, top, bottom)
            (self.textX, self.anchor) = (textX, anchor)
        }
    }

    /// A thick horizontal stroke under the plot from `x1` to `x2` at `y` (a study's response), with its tooltip.
    package struct Span: Sendable {
        package var label: String
        package var x1: Double
        package var x2: Double
        package var y: Double
        /// Green for a response; a study's stalls are orange.
        package var colour = "#2a9d3a"

        package init(label: String, x1: Double, x2: Double, y: Double, colour: String = "#2a9d3a") {
            (self.label, self.x1, self.x2, self.y, self.colour) = (label, x1, x2, y, colour)
        }
    }

    /// Where a time (seconds) and a value (the metric's units) land in the plot area, SVG user units.
    package struct Scale: Sendable {
        package var timeRange: ClosedRange<Double>
        package var valueRange: ClosedRange<Double>
        package var left = LineChart.left
        package var top = LineChart.top
        package var plotWidth = LineChart.width - LineChart.left - LineChart.right
        package var plotHeight = LineChart.height - LineChart.top - LineChart.bottom

        package init(timeRange: ClosedRange<Double>, valueRange: ClosedRange<Double>) {
            self.timeRange = timeRange
            self.valueRange = valueRange
        }

        package func x(_ t: Double) -> Double {
            let span = max(timeRange.upperBound - timeRange.lowerBound, 1e-6)
            return left + (t - timeRange.lowerBound) / span * plotWidth
        }

        /// Values beyond the range are drawn at its edge.
        package func y(_ v: Double) -> Double {
            let clamped = min(max(v, valueRange.lowerBound), valueRange.upperBound)
            return top + (valueRange.upperBound - clamped) / (valueRange.upperBound - valueRange.lowerBound)
                * plotHeight
        }

        /// A coordinate as the `points` attributes write it: one decimal.
        package static func format(_ v: Double) -> String { String(Double(Int(saturating: v * 10)) / 10) }

        /// `(time, value)` pairs as an SVG `points` attribute.
        package func points(_ samples: [(Double, Double)]) -> String {
            samples.map { "\(Self.format(x($0.0))),\(Self.format(y($0.1)))" }.joined(separator: " ")
        }

        /// Value labels: the range in four equal steps.
        package var yTicks: [Tick] {
            let step = (valueRange.upperBound - valueRange.lowerBound) / 4
            return (0...4).map { i in
                let v = valueRange.lowerBound + Double(i) * step
                return Tick(position: y(v), label: String(Int(saturating: v)))
            }
        }

        /// Round time labels along the x axis.
        package var xTicks: [Tick] {
            LineChart.niceTicks(timeRange, count: 6).map { Tick(position: x($0), label: LineChart.timeLabel($0)) }
        }
    }

    /// An episode drawn as a band behind the lines (or in its lane): a rectangle in SVG user units.
    package struct Band: Sendable {
        /// The metric and its times, as the band's tooltip says them.
        package var label: String
        package var colour: String
        package var x: Double
        package var y: Double
        package var width: Double
        package var height: Double

        package init(label: String, colour: String, x: Double, y: Double, width: Double, height: Double) {
            (self.label, self.colour, self.x, self.y, self.width, self.height) = (label, colour, x, y, width, height)
        }
    }
}

// The study pages (MienStudies) lay paths out themselves: a memberwise initialiser is internal to its module.
extension LineChart.Path {
    package init(name: String, colour: String, runs: [String], dots: [Point]) {
        (self.name, self.colour, self.runs, self.dots) = (name, colour, runs, dots)
    }
}
