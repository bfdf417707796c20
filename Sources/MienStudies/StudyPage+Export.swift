import Foundation
import Mien

/// The page's charts as files of their own, for a deck (`mien study --export-charts DIR`, issue 98 item 6): each
/// stimulus's charted metrics and its attention and retention curves, drawn as on the page.
extension StudyPage {
    /// One chart: its file name (`STIMULUS-METRIC.svg`) and a standalone SVG (its namespace, the page's text style
    /// and a white background, so it reads the same outside the page).
    package struct ChartFile: Sendable, Equatable {
        package var name: String
        package var svg: String
        /// Its size in CSS pixels (the page's user units).
        package var width: Int
        package var height: Int
    }

    package static func chartFiles(_ study: Study) throws -> [ChartFile] {
        let chart = try ChartSVG.parsed()
        var files: [ChartFile] = []
        for stimulus in study.stimuli {
            let view = section(stimulus, study: study, chart: chart)
            let prefix = fileName(stimulus)
            var drawn = view.metrics.map { ("\(prefix)-\(fileName($0.metric))", $0.chart) }
            if let viewing = view.viewing {
                if viewing.hasChart { drawn.append(("\(prefix)-attention", viewing.chart)) }
                if viewing.hasRetention { drawn.append(("\(prefix)-retention", viewing.retention)) }
            }
            files += drawn.map { name, svg in
                ChartFile(
                    name: name + ".svg", svg: standalone(svg), width: Int(saturating: LineChart.width),
                    height: Int(saturating: LineChart.height))
            }
        }
        return files
    }

    /// A name's letters, digits, `.`, `-` and `_`; anything else `_` (a stimulus may be named anything).
    static func fileName(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
    }

    /// The chart as a file of its own: the SVG namespace, the page's chart text style, a white background.
    static func standalone(_ svg: String) -> String {
        guard let open = svg.range(of: "<svg "), let end = svg[open.upperBound...].firstIndex(of: ">") else {
            return svg
        }
        let head = svg[open.upperBound..<end]
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" " + head
            + "><style>text{font:10px system-ui,sans-serif;fill:#666}</style>"
            + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>" + svg[svg.index(after: end)...] + "\n"
    }
}
