import Foundation
import Mien
import MienStudies
import MienTesting
import Testing

/// `mien norms` and `mien study --norms` (issue 80 item 4): a norm built from 13 studies made here of held-out
/// talking heads (each participant 3 s of footage at an onset of their own), the stimulus that is the norm's median
/// at the 50th percentile, the 10-stimulus floor, and every refusal of a store.
///
/// Every study here reads all six participants whatever they watched (`--min-watched 0`: one of the recordings looks
/// away from the screen often, and this is about the norms, not who is included).
@Suite("mien norms", .serialized)
struct NormsCommandTests {
    static let stimulus = "talk"

    /// The recordings (path, seconds) of the evaluation data the panels watch.
    private func recordings() throws -> [(String, Double)] {
        let root = try #require(SampleMedia.evaluationDirectory)
        return [
            (root.appendingPathComponent("videos_talking_heads/WDA_AlexandriaOcasioCortez_000.mp4").path, 7.9),
            (root.appendingPathComponent("pyfeat_test_data/WolfgangLanger_Pexels.mp4").path, 19.6),
        ]
    }

    /// Study `index`'s manifest: 6 participants, each 3 s of one recording from an onset drawn for them.
    private func manifest(_ index: Int, recordings: [(String, Double)]) -> String {
        var generator = SeededGenerator(seed: UInt64(100 + index))
        var lines = ["recording,participant,stimulus,onset,duration"]
        for participant in 0..<6 {
            let (path, seconds) = recordings[participant % recordings.count]
            let onset = Double(Int.random(in: 0...Int((seconds - 3) * 10), using: &generator)) / 10
            lines.append("\(path),s\(index)-p\(participant),\(Self.stimulus),\(onset),3")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Makes and aggregates 13 studies in `folder` (the recordings analysed once, by the first): their folders.
    private func studies(in folder: URL) throws -> [URL] {
        let recordings = try recordings()
        var made: [URL] = []
        for index in 0..<13 {
            let study = folder.appendingPathComponent("study\(index)")
            let csv = folder.appendingPathComponent("study\(index).csv")
            try manifest(index, recordings: recordings).write(to: csv, atomically: true, encoding: .utf8)
            if let first = made.first {
                try FileManager.default.createDirectory(at: study, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    at: study.appendingPathComponent("recordings"),
                    withDestinationURL: first.appendingPathComponent("recordings"))
            }
            let run = try runMien([
                "study", csv.path, "--output", study.path, "--bin", "0.5", "--permutations", "100", "--min-watched",
                "0", "--jobs", "2",
            ])
            try #require(run.status == 0, "study \(index): \(run.stderr)")
            made.append(study)
        }
        return made
    }

    /// norms.csv's rows as column name to cell.
    private func rows(_ study: URL) throws -> [[String: String]] {
        let table = try CSVRecords.read(path: study.appendingPathComponent("norms.csv").path)
        return table.rows.map(\.cells)
    }

    @Test(
        .enabled(if: SampleMedia.evaluationDirectory != nil, "needs the evaluation data (../shared/eval or EVAL_DIR)"))
    func aNormOf13Studies_placesItsMedianAt50_andPlacesNothingBelowTen() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let norms = folder.appendingPathComponent("norms.json").path
        try await OffPool.run {
            let studies = try studies(in: folder)
            for (index, study) in studies.enumerated() {
                let region = index < 10 ? "A" : "B"
                let added = try runMien([
                    "norms", "add", norms, study.path, "--tag", "category=talk", "--tag", "region=\(region)",
                ])
                #expect(
                    added.status == 0 && added.stdout.contains("added study\(index)/talk: 6 participants"),
                    "\(added.stderr)")
            }
            let listed = try runMien(["norms", "list", norms, "--filter", "region=A"])
            #expect(listed.status == 0 && listed.stdout.split(separator: "\n").count == 11, "\(listed.stdout)")
            #expect(listed.stderr.contains("10 of 13 stimuli"), "\(listed.stderr)")

            // The stimulus whose smile is the norm's median: among the other 12, six below and six above.
            let set = try NormsFile(path: norms).read()
            let smile = "expressions.smile mean"
            let order = set.entries.sorted { ($0.figures[smile] ?? 0) < ($1.figures[smile] ?? 0) }
            let median = try #require(studies.first { $0.lastPathComponent == order[6].study })
            let compared = try runMien([
                "study", folder.appendingPathComponent("\(median.lastPathComponent).csv").path, "--output", median.path,
                "--bin", "0.5", "--permutations", "100", "--min-watched", "0", "--norms", norms,
            ])
            try #require(compared.status == 0, "\(compared.stderr)")
            let row = try #require(try rows(median).first { $0["figure"] == smile })
            #expect(row["normSize"] == "12" && row["percentile"] == "50", "\(row)")
            let (low, high) = (Double(row["low"] ?? "") ?? 99, Double(row["high"] ?? "") ?? 0)
            #expect(low <= 50 && high >= 50 && row["direction"] == "", "\(row)")
            let page = try String(contentsOf: median.appendingPathComponent("study.html"), encoding: .utf8)
            #expect(page.contains("Against the norm (12 stimuli; no filter)"), "the summary names the norm")
            let json = try String(contentsOf: median.appendingPathComponent("study.json"), encoding: .utf8)
            #expect(json.contains("\"norms\":[") && json.contains("sign-flip permutation test"))

            // The floor: region A holds 10 stimuli; a study of region A is not placed among its 9 others.
            let bStudy = studies[12]
            let placed = try runMien([
                "study", folder.appendingPathComponent("study12.csv").path, "--output", bStudy.path, "--bin", "0.5",
                "--permutations", "100", "--min-watched", "0",
                "--norms", norms, "--norm-filter", "region=A",
            ])
            #expect(placed.status == 0, "\(placed.stderr)")
            #expect(try rows(bStudy).contains { $0["normSize"] == "10" && $0["percentile"] != "" })
            let aStudy = studies[0]
            let floored = try runMien([
                "study", folder.appendingPathComponent("study0.csv").path, "--output", aStudy.path, "--bin", "0.5",
                "--permutations", "100", "--min-watched", "0",
                "--norms", norms, "--norm-filter", "region=A",
            ])
            #expect(floored.status == 0, "\(floored.stderr)")
            let below = try rows(aStudy)
            #expect(!below.isEmpty && below.allSatisfy { $0["percentile"] == "" && $0["normSize"] == "9" })
            #expect(below.allSatisfy { ($0["reason"] ?? "").contains("at least 10") })
            let floorPage = try String(contentsOf: aStudy.appendingPathComponent("study.html"), encoding: .utf8)
            #expect(floorPage.contains("not compared: fewer than 10 stimuli"))
            // Another bin is another aggregation: none of the norm's stimuli is compared.
            let rebinned = try runMien([
                "study", folder.appendingPathComponent("study12.csv").path, "--output", bStudy.path, "--bin", "1",
                "--permutations", "100", "--min-watched", "0",
                "--norms", norms,
            ])
            #expect(rebinned.status == 0)
            #expect(try rows(bStudy).allSatisfy { $0["normSize"] == "0" })

            // The same stimulus and panel again, under another name: refused, the norm unchanged.
            let again = try runMien(["norms", "add", norms, studies[3].path, "--name", "other"])
            #expect(again.status == 1 && again.stderr.contains("already in the norm as study3/talk"), "\(again.stderr)")
            #expect(try NormsFile(path: norms).read().entries.count == 13)
            let removed = try runMien(["norms", "remove", norms, "study3/talk"])
            #expect(removed.status == 0 && removed.stdout.contains("removed study3/talk"))
            let gone = try runMien(["norms", "remove", norms, "study3/talk"])
            #expect(gone.status == 1 && gone.stderr.contains("holds no stimulus study3/talk"), "\(gone.stderr)")
            #expect(try NormsFile(path: norms).read().entries.count == 12)
        }
    }

    /// A store from a newer Mien, or of another metric set, and what is not a store or a study: refused saying what.
    @Test func stores_ofAnotherVersionOrMetricSet_andBadArguments_areRefused() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("norms.json")
        var set = NormSet()
        set.version = 2
        try set.encoded().write(to: store)
        let newer = try runMien(["norms", "list", store.path])
        #expect(newer.status == 1 && newer.stderr.contains("format 2, written by a newer Mien"), "\(newer.stderr)")
        set = NormSet()
        set.figureSet.metrics.append("emotions.anger")
        set.figureSet.features.removeAll { $0 == "peak" }
        try set.encoded().write(to: store)
        let other = try runMien(["norms", "list", store.path])
        #expect(
            other.status == 1 && other.stderr.contains("another metric set")
                && other.stderr.contains("metrics emotions.anger only in the store")
                && other.stderr.contains("features peak only in this Mien"), "\(other.stderr)")
        try Data("{\"entries\": []}".utf8).write(to: store)
        #expect(try runMien(["norms", "list", store.path]).stderr.contains("is not a norms store"))
        let noStudy = try runMien(["norms", "add", folder.appendingPathComponent("n.json").path, folder.path])
        #expect(noStudy.status == 64 && noStudy.stderr.contains("holds no study.json"), "\(noStudy.stderr)")
        let badTag = try runMien(["norms", "add", "n.json", folder.path, "--tag", "category"])
        #expect(badTag.status == 64 && badTag.stderr.contains("write KEY=VALUE"), "\(badTag.stderr)")
        let filterAlone = try runMien([
            "study", "m.csv", "--output", folder.path, "--norm-filter", "region=A",
        ])
        #expect(
            filterAlone.status == 64 && filterAlone.stderr.contains("give it with --norms"), "\(filterAlone.stderr)")
    }

    /// The same norm in a study database: added, refused twice, two adds at once both kept, listed and removed.
    @Test func aNormInTheStudyDatabase_behavesAsAFile() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = server.url()
        let urlFile = folder.appendingPathComponent("url")
        try url.write(to: urlFile, atomically: true, encoding: .utf8)
        let clip = SampleMedia.astronautClipPath
        let studies = try await OffPool.run { () throws -> [URL] in
            var studies: [URL] = []
            for index in 0..<3 {
                let csv = folder.appendingPathComponent("s\(index).csv")
                try "recording,participant,stimulus,onset\n\(clip),p\(index),clip,\(Double(index) * 0.5)\n".write(
                    to: csv, atomically: true, encoding: .utf8)
                let study = folder.appendingPathComponent("s\(index)")
                let run = try runMien([
                    "study", csv.path, "--output", study.path, "--bin", "0.5", "--permutations", "100", "--min-watched",
                    "0",
                ])
                try #require(run.status == 0, "\(run.stderr)")
                studies.append(study)
            }
            return studies
        }
        let store = ["--store-file", urlFile.path]
        let (first, twice) = try await OffPool.run {
            (
                try runMien(["norms", "add", "ads", studies[0].path] + store),
                try runMien(["norms", "add", "ads", studies[0].path] + store)
            )
        }
        #expect(first.status == 0 && first.stdout.contains("added s0/clip"), "\(first.stderr)")
        #expect(twice.status == 1 && twice.stderr.contains("already in the norm as s0/clip"), "\(twice.stderr)")
        #expect(!twice.stderr.contains(server.password), "no secret in a message")
        // Two adds at once: each transaction holds the norm's row, so both land.
        async let one = OffPool.run { try runMien(["norms", "add", "ads", studies[1].path] + store) }
        async let two = OffPool.run { try runMien(["norms", "add", "ads", studies[2].path] + store) }
        let both = try await [one, two]
        #expect(both.allSatisfy { $0.status == 0 }, "\(both.map(\.stderr))")
        try await OffPool.run {
            let listed = try runMien(["norms", "list", "ads"] + store)
            #expect(listed.status == 0 && listed.stderr.contains("3 of 3 stimuli in norm ads in"), "\(listed.stderr)")
            #expect(listed.stdout.contains("s1/clip") && listed.stdout.contains("s2/clip"))
            let removed = try runMien(["norms", "remove", "ads", "s1/clip"] + store)
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(try runMien(["norms", "list", "ads"] + store).stderr.contains("2 of 2 stimuli"))
            let badName = try runMien(["norms", "list", "a/b"] + store)
            #expect(badName.status == 64 && badName.stderr.contains("not a norm's name"), "\(badName.stderr)")
        }
    }
}
