import Mien

extension StudyPage {
    /// One row per included participant, grouped, each bin's value as the colour's strength.
    ///
    /// A bin with the face not measured is grey and crossed, so it never reads as a zero. SVG user units, the
    /// charts' width.
    struct StripView {
        var metric: String
        var low: String
        var high: String
        var width: Int
        var height: Int
        var rows: [Row]

        struct Row {
            var name: String
            var colour: String
            var y: String
            var rowHeight: String
            var labelX: String
            var labelY: String
            /// `textLength` for a label longer than the margin holds: squeezed to fit, never cut (issue 98 item 3:
            /// "P12 · lapsed" showed as "2 · lapsed").
            var fit: String
            var cells: [Cell]
        }

        struct Cell {
            var measured: Bool
            var x: String
            var width: String
            var right: String
            var bottom: String
            var opacity: String
        }

        /// The height of a row, SVG user units.
        static let row = 9.0

        init(
            _ metric: String, participants: [ParticipantSeries], groups: [String], range: ClosedRange<Double>,
            bin: Double, end: Double
        ) {
            self.metric = metric
            low = number(range.lowerBound)
            high = number(range.upperBound)
            let row = Self.row
            let plot = StudyPage.width - StudyPage.left - StudyPage.right
            let named = groups.filter { $0 != StudyManifest.wholePanel }
            let ordered =
                named.isEmpty
                ? participants.map { (StudyManifest.wholePanel, $0) }
                : named.flatMap { group in participants.filter { $0.row.group == group }.map { (group, $0) } }
                    + participants.filter { $0.row.group == nil }.map { ("", $0) }
            width = Int(saturating: StudyPage.width)
            height = Int(saturating: Double(ordered.count) * row + 4)
            let bins = Int(saturating: end / max(bin, 1e-9))
            let w = bin / max(end, 1e-9) * plot
            rows = ordered.enumerated().map { index, entry in
                let (group, participant) = entry
                let y = Double(index) * row
                let series = participant.bins[metric] ?? []
                let cells = (0..<min(bins, max(series.count, participant.binCount))).map { index -> Cell in
                    let x = StudyPage.left + Double(index) * bin / max(end, 1e-9) * plot
                    let value = index < series.count ? series[index] : nil
                    let strength = value.map { ($0 - range.lowerBound) / (range.upperBound - range.lowerBound) } ?? 0
                    return Cell(
                        measured: value != nil, x: f(x), width: f(w), right: f(x + w), bottom: f(y + row - 1),
                        opacity: f(min(max(strength, 0), 1)))
                }
                let name = participant.row.participant + (group.isEmpty || named.isEmpty ? "" : " · " + group)
                // About 0.55 em a character at the labels' 8 units; the margin left of the cells, less the colour bar.
                let room = StudyPage.left - 8
                let fit =
                    Double(name.count) * 8 * 0.55 > room
                    ? " textLength=\"\(f(room))\" lengthAdjust=\"spacingAndGlyphs\"" : ""
                return Row(
                    name: name,
                    colour: groups.firstIndex(of: group).map(StudyPage.colour) ?? "#999", y: f(y),
                    rowHeight: f(row - 1), labelX: f(StudyPage.left - 4), labelY: f(y + row - 1), fit: fit,
                    cells: cells)
            }
        }
    }
}
