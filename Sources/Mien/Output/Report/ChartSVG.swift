package import Mustache

/// One `LineChart` as inline SVG, from the one chart template both pages draw with: the report's timelines and
/// episode lanes, and the study page's curves with their bands and moments.
///
/// Text (titles, labels, tooltips) is escaped by the template engine; numbers are SVG user units.
package enum ChartSVG {
    /// The template (Mustache) of one chart.
    static let template = """
        <svg class="chart" viewBox="0 0 {{width}} {{height}}" width="{{width}}" height="{{height}}" role="img" aria-label="{{title}}">
        <rect x="{{plotLeft}}" y="{{plotTop}}" width="{{plotWidth}}" height="{{plotHeight}}" fill="none" stroke="#ccc"/>
        {{#hasYLabel}}<text transform="rotate(-90)" x="-{{yLabelY}}" y="9" text-anchor="middle">{{yLabel}}</text>{{/hasYLabel}}
        {{#yTicks}}<line x1="{{plotLeft}}" x2="{{plotRight}}" y1="{{position}}" y2="{{position}}" stroke="#eee"/><text x="{{tickLabelX}}" y="{{position}}" text-anchor="end" dominant-baseline="middle">{{label}}</text>
        {{/yTicks}}
        {{#xTicks}}<line x1="{{position}}" x2="{{position}}" y1="{{plotTop}}" y2="{{plotBottom}}" stroke="#f2f2f2"/><text x="{{position}}" y="{{labelY}}" text-anchor="middle">{{label}}</text>
        {{/xTicks}}
        {{#bands}}<rect x="{{x}}" y="{{y}}" width="{{width}}" height="{{height}}" fill="{{colour}}" fill-opacity="{{bandOpacity}}"><title>{{label}}</title></rect>
        {{/bands}}
        {{#areas}}<polygon points="{{points}}" fill="{{colour}}" fill-opacity="0.15" stroke="none"/>
        {{/areas}}
        {{#hasZeroLine}}<line x1="{{plotLeft}}" x2="{{plotRight}}" y1="{{zeroLine}}" y2="{{zeroLine}}" stroke="#999" stroke-dasharray="4 3"/>{{/hasZeroLine}}
        {{#paths}}
        {{#runs}}<polyline fill="none" stroke="{{colour}}" stroke-width="{{strokeWidth}}" stroke-linejoin="round" points="{{points}}"><title>{{name}}</title></polyline>
        {{/runs}}
        {{#dashedRuns}}<polyline fill="none" stroke="{{colour}}" stroke-width="1.2" stroke-dasharray="4 3" stroke-linejoin="round" points="{{points}}"><title>{{name}}</title></polyline>
        {{/dashedRuns}}
        {{#dots}}<circle cx="{{x}}" cy="{{y}}" r="{{dotRadius}}" fill="{{colour}}"><title>{{name}}</title></circle>
        {{/dots}}
        {{/paths}}
        {{#markers}}<circle cx="{{x}}" cy="{{y}}" r="4.5" fill="none" stroke="{{colour}}" stroke-width="2"><title>{{label}}</title></circle>
        {{/markers}}
        {{#spans}}<line x1="{{x1}}" x2="{{x2}}" y1="{{y}}" y2="{{y}}" stroke="{{colour}}" stroke-width="3"><title>{{label}}</title></line>
        {{/spans}}
        {{#rules}}<line x1="{{x}}" x2="{{x}}" y1="{{top}}" y2="{{bottom}}" stroke="#6a3d9a" stroke-width="1.5" stroke-dasharray="3 2"><title>{{label}}</title></line><text x="{{textX}}" y="{{top}}" dy="9" text-anchor="{{anchor}}" font-size="10" fill="#6a3d9a">{{label}}</text>
        {{/rules}}
        </svg>
        """

    /// The parsed template.
    package static func parsed() throws -> MustacheTemplate { try MustacheTemplate(string: template) }

    /// `chart` as SVG, with `template` (`parsed()`).
    package static func render(_ chart: LineChart, with template: MustacheTemplate) -> String {
        template.render(View(chart))
    }

    /// `chart` as SVG.
    package static func render(_ chart: LineChart) throws -> String {
        render(chart, with: try parsed())
    }

    struct View {
        var title: String
        var width = LineChart.width
        var height = LineChart.height
        var plotLeft = LineChart.left
        var plotRight = LineChart.width - LineChart.right
        var plotTop = LineChart.top
        var plotBottom = LineChart.height - LineChart.bottom
        var plotWidth = LineChart.width - LineChart.left - LineChart.right
        var plotHeight = LineChart.height - LineChart.top - LineChart.bottom
        var tickLabelX = LineChart.left - 5
        var labelY = LineChart.height - 6
        var paths: [PathView]
        var xTicks: [LineChart.Tick]
        var yTicks: [LineChart.Tick]
        var zeroLine: Double
        var hasZeroLine: Bool
        var bands: [LineChart.Band]
        var bandOpacity: Double
        var areas: [LineChart.Area]
        var markers: [LineChart.Marker]
        var spans: [LineChart.Span]
        var rules: [LineChart.Rule]
        var yLabel: String
        var hasYLabel: Bool
        var yLabelY: Double

        init(_ chart: LineChart) {
            title = chart.title
            height = chart.height
            plotLeft = chart.left
            plotWidth = LineChart.width - chart.left - LineChart.right
            tickLabelX = chart.left - 5
            plotBottom = chart.height - LineChart.bottom
            plotHeight = chart.height - LineChart.top - LineChart.bottom
            labelY = chart.height - 6
            bands = chart.bands
            bandOpacity = chart.bandOpacity
            paths = chart.paths.map(PathView.init)
            xTicks = chart.xTicks
            yTicks = chart.yTicks
            zeroLine = chart.zeroLine ?? 0
            hasZeroLine = chart.zeroLine != nil
            areas = chart.areas
            markers = chart.markers
            spans = chart.spans
            rules = chart.rules
            yLabel = chart.yLabel
            hasYLabel = !chart.yLabel.isEmpty
            yLabelY = (LineChart.top + chart.height - LineChart.bottom) / 2
        }
    }

    struct PathView {
        var name: String
        var colour: String
        var runs: [RunView]
        var dashedRuns: [RunView]
        var dots: [Point]
        var strokeWidth: String
        var dotRadius: String

        init(_ path: LineChart.Path) {
            name = path.name
            colour = path.colour
            runs = path.runs.map(RunView.init)
            dashedRuns = path.dashedRuns.map(RunView.init)
            dots = path.dots
            strokeWidth = path.strokeWidth
            dotRadius = path.dotRadius
        }
    }

    struct RunView {
        var points: String
    }
}
