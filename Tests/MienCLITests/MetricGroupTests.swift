import Foundation
import Mien
import MienTesting
import Testing

/// One group word, one meaning: each word given to `mien analyze --metrics` and to `mien detect`'s flags on
/// the sample gives exactly the catalog's fields for it; `mien metrics` prints that catalog, and
/// docs/metrics.md holds its table.
@Suite("Metric groups on the command line")
struct MetricGroupTests {
    private func face(_ arguments: [String]) throws -> [String: Any] {
        let result = try runMien(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try #require(result.jsonLines.first.map(facesOf)?.first, "\(arguments): no face")
    }

    @Test(arguments: MetricGroup.words)
    func analyzeMetrics_givesExactlyTheCatalogsFields(word: String) throws {
        let face = try face(["analyze", "--metrics", word, SampleMedia.astronautPath])
        let problems = MetricFields.mismatches(face: face, groups: MetricFields.groups(named: word))
        #expect(problems.isEmpty, "--metrics \(word): \(problems)")
    }

    @Test(arguments: MetricGroup.words)
    func detectFlags_giveTheSameFieldsAsTheWord(word: String) throws {
        let groups = MetricFields.groups(named: word)
        let flags = MetricGroup.allCases.filter(groups.contains).map { "--\($0.rawValue)" }
        let face = try face(["detect"] + flags + [SampleMedia.astronautPath])
        let problems = MetricFields.mismatches(face: face, groups: groups)
        #expect(problems.isEmpty, "detect \(flags): \(problems)")
    }

    @Test func theCheck_refusesAFaceOfOtherGroups() throws {
        let face = try face(["detect", "--expressions", SampleMedia.astronautPath])
        #expect(MetricFields.mismatches(face: face, groups: [.expressions]).isEmpty)
        #expect(!MetricFields.mismatches(face: face, groups: [.emoji]).isEmpty)
        #expect(!MetricFields.mismatches(face: face, groups: [.expressions, .emoji]).isEmpty, "emoji missing")
        #expect(!MetricFields.mismatches(face: face, groups: []).isEmpty)
    }

    @Test func metricsJSON_listsEveryEntryAndTheWords() throws {
        let result = try runMien(["metrics", "--json"])
        #expect(result.status == 0)
        let catalog = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(catalog["words"] as? [String] == MetricGroup.words)
        let metrics = try #require(catalog["metrics"] as? [[String: Any]])
        #expect(metrics.compactMap { $0["name"] as? String } == MetricCatalog.entries.map(\.name))
        let smile = try #require(metrics.first { $0["name"] as? String == "expressions.smile" })
        #expect(smile["actionUnit"] as? String == "AU12" && smile["range"] as? [Double] == [0, 100])
        #expect(smile["columns"] as? [String] == ["smile"] && smile["group"] as? String == "expressions")
    }

    @Test func docsMetricsTable_isTheCatalogsTable() throws {
        let url = SampleMedia.repositoryRoot.appendingPathComponent("docs/metrics.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let start = try #require(text.range(of: "<!-- metric-catalog:start -->\n"))
        let end = try #require(text.range(of: "<!-- metric-catalog:end -->"))
        let table = try runMien(["metrics", "--markdown"])
        #expect(table.status == 0 && !table.stdout.isEmpty)
        #expect(
            String(text[start.upperBound..<end.lowerBound]) == table.stdout,
            "docs/metrics.md's table differs from `mien metrics --markdown`: paste the command's output between the markers"
        )
    }
}
