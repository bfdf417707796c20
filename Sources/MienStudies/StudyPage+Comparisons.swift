import Mien
import MienStatistics

/// The page's "which advert did better on what" and its groups' column letters (issue 98 item 4), from
/// `Study.comparisons` alone.
extension StudyPage {
    struct ContrastView {
        var kpi: String
        var a: String
        var b: String
        var valueA: String
        var valueB: String
        var difference: String
        var method: String
        var p: String
        var q: String
        var better: String
    }

    /// One stimulus's groups side by side: each KPI's value per group with the letters of the groups it is above.
    struct GroupTableView {
        var stimulus: String
        var columns: [TextView]
        var rows: [GroupRowView]
    }

    struct GroupRowView {
        var kpi: String
        var cells: [TextView]
    }

    static func contrasts(_ study: Study) -> [ContrastView] {
        let paired = study.comparisons.filter { $0.kind == "stimuli" }
        // The contrasts that found a better advert first, then the rest, each in the study's order.
        return (paired.filter { $0.better != nil } + paired.filter { $0.better == nil }).map { row in
            let share = row.method.hasPrefix("McNemar")
            let unit = share ? " %" : ""
            let places = share ? 0 : 2
            let interval = row.low.flatMap { low in row.high.map { " [\(number(low)), \(number($0))]" } } ?? ""
            return ContrastView(
                kpi: row.kpi, a: row.a, b: row.b,
                valueA: ResultTable.number(row.valueA, places: places) + unit,
                valueB: ResultTable.number(row.valueB, places: places) + unit,
                difference: (row.difference > 0 ? "+" : "") + ResultTable.number(row.difference, places: places)
                    + (share ? " points" : "") + interval,
                method: "\(row.method), n \(row.n)", p: AnswerSummary.probability(row.p),
                q: AnswerSummary.probability(row.q), better: row.better ?? "no difference the test supports")
        }
    }

    static func groupTables(_ study: Study) -> [GroupTableView] {
        study.stimuli.compactMap { stimulus in
            let rows = study.comparisons.filter { $0.kind == "groups" && $0.stimulus == stimulus }
            let groups = rows.reduce(into: [String]()) { groups, row in
                for name in [row.a, row.b] where !groups.contains(name) { groups.append(name) }
            }.sorted()
            guard groups.count >= 2 else { return nil }
            let alphabet = Array("abcdefghijklmnopqrstuvwxyz")
            let letters = groups.indices.map { String(alphabet[$0 % alphabet.count]) }
            let kpis = rows.reduce(into: [String]()) { if !$0.contains($1.kpi) { $0.append($1.kpi) } }
            let table = kpis.map { kpi in
                let pairs = rows.filter { $0.kpi == kpi }
                var values: [String: Double] = [:]
                for row in pairs {
                    values[row.a] = row.valueA
                    values[row.b] = row.valueB
                }
                let share = pairs.first?.method.hasPrefix("two-proportion") ?? false
                let above = PairwiseTests.letters(
                    columns: groups.count,
                    pairs: pairs.compactMap { row in
                        guard let i = groups.firstIndex(of: row.a), let j = groups.firstIndex(of: row.b) else {
                            return nil
                        }
                        return (i, j, row.q, row.difference)
                    }, alpha: study.settings.alpha, names: letters)
                let cells = groups.indices.map { index in
                    TextView(
                        text: values[groups[index]].map {
                            ResultTable.number($0, places: share ? 0 : 2) + (share ? " %" : "")
                        }.map { above[index].isEmpty ? $0 : "\($0) \(above[index])" } ?? "")
                }
                return GroupRowView(kpi: kpi, cells: cells)
            }
            return GroupTableView(
                stimulus: stimulus,
                columns: groups.indices.map { TextView(text: "\(named(groups[$0], study.settings)) (\(letters[$0]))") },
                rows: table)
        }
    }
}
