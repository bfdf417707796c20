import Foundation

/// The study page's drawings: curves with their bands and moments, the share in episode, a strip per participant,
/// and the participants' table.
extension StudyPage {
    static func chart(
        label: String, end: Double, range: ClosedRange<Double>, groups: [String], points: [StudyCurvePoint],
        value: (StudyCurvePoint) -> Double?, band: Bool, moments: [StudyMoment], bin: Double, minimum: Int
    ) -> String {
        func x(_ t: Double) -> Double { left + t / max(end, 1e-9) * (width - left - right) }
        // Values and bands are clipped to the metric's range: an interval of a few participants can reach past it.
        func y(_ v: Double) -> Double {
            let clamped = min(max(v, range.lowerBound), range.upperBound)
            return top + (range.upperBound - clamped) / (range.upperBound - range.lowerBound) * (height - top - bottom)
        }
        var svg =
            "<svg class=\"chart\" role=\"img\" aria-label=\"\(escape(label))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\">\n"
        for moment in moments where moment.kind == .difference {
            svg +=
                "<rect x=\"\(f(x(moment.start)))\" y=\"\(f(top))\" width=\"\(f(x(moment.end) - x(moment.start)))\" height=\"\(f(height - top - bottom))\" fill=\"#f5c542\" fill-opacity=\"0.25\"><title>\(escape(moment.group)) − \(escape(moment.otherGroup ?? "")): \(number(moment.value)) at \(number(moment.time)) s, p = \(probability(moment.p ?? 1))</title></rect>\n"
        }
        for tick in stride(
            from: range.lowerBound, through: range.upperBound, by: (range.upperBound - range.lowerBound) / 4)
        {
            svg +=
                "<line x1=\"\(f(left))\" x2=\"\(f(width - right))\" y1=\"\(f(y(tick)))\" y2=\"\(f(y(tick)))\" stroke=\"#e4e4e4\"/><text x=\"\(f(left - 4))\" y=\"\(f(y(tick) + 4))\" font-size=\"10\" text-anchor=\"end\">\(number(tick))</text>\n"
        }
        let step = niceStep(end)
        for tick in stride(from: 0, through: end, by: step) {
            svg +=
                "<text x=\"\(f(x(tick)))\" y=\"\(f(height - 8))\" font-size=\"10\" text-anchor=\"middle\">\(number(tick)) s</text>\n"
        }
        for (index, group) in groups.enumerated() {
            let line = points.filter { $0.group == group }
            let colour = colour(index)
            if band {
                // Bands only over runs of bins with enough participants: below that an interval says little.
                var run: [StudyCurvePoint] = []
                func close() {
                    let upper = run.compactMap { point in point.high.map { (point.time + bin / 2, $0) } }
                    let lower = run.compactMap { point in point.low.map { (point.time + bin / 2, $0) } }
                    if upper.count > 1 {
                        let outline = (upper + lower.reversed()).map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(
                            separator: " ")
                        svg +=
                            "<polygon points=\"\(outline)\" fill=\"\(colour)\" fill-opacity=\"0.15\" stroke=\"none\"/>\n"
                    }
                    run = []
                }
                for point in line {
                    if point.n >= minimum { run.append(point) } else { close() }
                }
                close()
            }
            // Solid where enough participants are measured, dashed where fewer.
            var segment: [(Double, Double)] = []
            var thin = false
            func draw() {
                if segment.count > 1 {
                    let dash = thin ? " stroke-dasharray=\"4 3\"" : ""
                    let width = thin ? "1.2" : "1.8"
                    svg +=
                        "<polyline points=\"\(segment.map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(separator: " "))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(width)\"\(dash)/>\n"
                } else if let only = segment.first {
                    svg += "<circle cx=\"\(f(x(only.0)))\" cy=\"\(f(y(only.1)))\" r=\"2.5\" fill=\"\(colour)\"/>\n"
                }
            }
            for point in line {
                guard let v = value(point) else {
                    draw()
                    segment = []
                    continue
                }
                let isThin = point.n < minimum
                if isThin != thin && !segment.isEmpty {
                    let last = segment[segment.count - 1]
                    draw()
                    segment = [last]
                }
                thin = isThin
                segment.append((point.time + bin / 2, v))
            }
            draw()
            for moment in moments where moment.kind == .peak && moment.group == group {
                svg +=
                    "<circle cx=\"\(f(x(moment.time + bin / 2)))\" cy=\"\(f(y(moment.value)))\" r=\"4.5\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"><title>peak \(number(moment.value)) at \(number(moment.time)) s (\(escape(group)))</title></circle>\n"
            }
            for moment in moments where moment.kind == .response && moment.group == group {
                let level = height - bottom - 3 - Double(index) * 4
                svg +=
                    "<line x1=\"\(f(x(moment.start)))\" x2=\"\(f(x(moment.end)))\" y1=\"\(f(level))\" y2=\"\(f(level))\" stroke=\"#2a9d3a\" stroke-width=\"3\"><title>\(escape(group)) responds \(number(moment.start))–\(number(moment.end)) s, p = \(probability(moment.p ?? 1))</title></line>\n"
            }
        }
        return svg + "</svg>\n"
    }

    /// One row per included participant, grouped, each bin's value as the colour's strength; a bin with the face
    /// not measured is grey and crossed, so it never reads as a zero.
    static func strip(
        _ metric: String, participants: [ParticipantSeries], groups: [String], range: ClosedRange<Double>,
        bin: Double, end: Double
    ) -> String {
        let row = 9.0
        let plot = width - left - right
        let named = groups.filter { $0 != StudyManifest.wholePanel }
        let ordered =
            named.isEmpty
            ? participants.map { (StudyManifest.wholePanel, $0) }
            : named.flatMap { group in participants.filter { $0.row.group == group }.map { (group, $0) } }
                + participants.filter { $0.row.group == nil }.map { ("", $0) }
        var html =
            "<p class=\"note key\">Each participant: \(number(range.lowerBound))<i style=\"background:#fff\"></i><i style=\"background:rgba(31,119,180,0.5)\"></i><i style=\"background:rgb(31,119,180)\"></i>\(number(range.upperBound)); <i style=\"background:#ddd\"></i> not measured.</p>\n"
        let heightPixels = Double(ordered.count) * row + 4
        html +=
            "<svg class=\"strip\" role=\"img\" aria-label=\"\(escape(metric)) per participant\" viewBox=\"0 0 \(Int(width)) \(Int(heightPixels))\" width=\"\(Int(width))\" height=\"\(Int(heightPixels))\">\n"
        let bins = Int((end / max(bin, 1e-9)).rounded())
        for (index, (group, participant)) in ordered.enumerated() {
            let y = Double(index) * row
            let colour = groups.firstIndex(of: group).map(StudyPage.colour) ?? "#999"
            html +=
                "<rect x=\"0\" y=\"\(f(y))\" width=\"3\" height=\"\(f(row - 1))\" fill=\"\(colour)\"/><text x=\"\(f(left - 4))\" y=\"\(f(y + row - 1))\" font-size=\"8\" text-anchor=\"end\">\(escape(participant.row.participant))\(group.isEmpty || named.isEmpty ? "" : " · " + escape(group))</text>\n"
            let series = participant.bins[metric] ?? []
            for index in 0..<min(bins, max(series.count, participant.binCount)) {
                let x = left + Double(index) * bin / max(end, 1e-9) * plot
                let w = bin / max(end, 1e-9) * plot
                guard index < series.count, let value = series[index] else {
                    html +=
                        "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(row - 1))\" fill=\"#ddd\"/><line x1=\"\(f(x))\" y1=\"\(f(y + row - 1))\" x2=\"\(f(x + w))\" y2=\"\(f(y))\" stroke=\"#bbb\" stroke-width=\"0.6\"/>\n"
                    continue
                }
                let strength = (value - range.lowerBound) / (range.upperBound - range.lowerBound)
                html +=
                    "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(row - 1))\" fill=\"#1f77b4\" fill-opacity=\"\(f(min(max(strength, 0), 1)))\"/>\n"
            }
        }
        return html + "</svg>\n"
    }

    static func participantsTable(_ study: Study) -> String {
        var html =
            "<h2>Participants</h2><table><tr><th>participant</th><th>stimulus</th><th>group</th><th>face share</th><th>included</th><th>notes</th></tr>\n"
        for series in study.participants {
            let status = series.exclusion.map { "no: " + escape($0) } ?? "yes"
            html +=
                "<tr><td>\(escape(series.row.participant))</td><td>\(escape(series.row.stimulus))</td><td>\(escape(series.row.group ?? ""))</td><td>\(number(series.faceShare * 100)) %</td><td>\(status)</td><td>\(escape(series.notes.joined(separator: "; ")))</td></tr>\n"
        }
        html += "</table>\n<h2>What was tested</h2><ul class=\"note\">"
        html += study.notes.map { "<li>\(escape($0))</li>" }.joined()
        return html + "</ul>\n"
    }

    static func colour(_ index: Int) -> String { palette[index % palette.count] }
    static func f(_ value: Double) -> String { String(format: "%.1f", value) }
    static func number(_ value: Double) -> String { ResultTable.number(value, places: 2) }
    static func signed(_ value: Double) -> String { (value > 0 ? "+" : "") + number(value) }
    static func probability(_ value: Double) -> String {
        value < 0.001 ? "< 0.001" : ResultTable.number(value, places: 3)
    }

    static func niceStep(_ span: Double) -> Double {
        let raw = max(span, 1e-3) / 8
        let magnitude = pow(10, floor(log10(raw)))
        return [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
