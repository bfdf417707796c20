import Foundation
import Mien
import MienTesting
import Testing

/// `mien study export` and `mien study --store` against a PostgreSQL of the test's own: what they say when the
/// study, the folder or the database is not what they need (results of real faces are compared, export against
/// database, by `make fleet-check` and `StudyResultsDatabaseTests`).
@Suite("mien study on a database", .serialized)
struct StudyStoreCommandTests {
    @Test func exportAndAggregate_sayWhatIsWrong_andExportAnEmptyStudy() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let study = folder.appendingPathComponent("ad")
        let export = folder.appendingPathComponent("export")
        let (url, wrong) = (server.url(), server.url(password: "wrong-secret"))
        // Every command waits on a child process: off the cooperative pool, which the other tests need meanwhile.
        let runs = try await OffPool.run { () throws -> [String: CommandResult] in
            var runs: [String: CommandResult] = [:]
            runs["made"] = try runMien([
                "study", "init", study.path, "--stimulus", SampleMedia.astronautClipPath, "--contact",
                "lab@example.org", "--store", url,
            ])
            runs["exported"] = try runMien(["study", "export", "ad", export.path, "--store", url])
            runs["empty"] = try runMien([
                "study", "ad", "--store", url, "--output", folder.appendingPathComponent("s").path,
            ])
            runs["again"] = try runMien(["study", "export", "ad", export.path, "--store", url])
            runs["unknown"] = try runMien([
                "study", "export", "nosuch", folder.appendingPathComponent("x").path, "--store", url,
            ])
            runs["password"] = try runMien([
                "study", "ad", "--store", wrong, "--output", folder.appendingPathComponent("y").path,
            ])
            runs["noStore"] = try runMien(["study", "export", "ad", folder.appendingPathComponent("z").path])
            runs["folder"] = try runMien(["study", study.path, "--output", folder.appendingPathComponent("f").path])
            runs["fromExport"] = try runMien([
                "study", export.path, "--output", folder.appendingPathComponent("e").path,
            ])
            return runs
        }
        func run(_ name: String) throws -> CommandResult { try #require(runs[name]) }
        let made = try run("made")
        try #require(made.status == 0, "\(made.stderr)")

        // Nobody yet: the layout with no participant, and an aggregation that says why it has nothing.
        let exported = try run("exported")
        #expect(
            exported.status == 0 && exported.stderr.contains("0 participants, 0 stimulus attempts"),
            "\(exported.stderr)")
        #expect(
            try Data(contentsOf: export.appendingPathComponent("settings.json"))
                == Data(contentsOf: study.appendingPathComponent("settings.json")), "the settings as registered")
        #expect(FileManager.default.fileExists(atPath: export.appendingPathComponent("manifest.csv").path))
        let stimuli = try FileManager.default.contentsOfDirectory(atPath: study.appendingPathComponent("stimuli").path)
        #expect(!stimuli.isEmpty)
        for file in stimuli {
            #expect(
                try Data(contentsOf: export.appendingPathComponent("stimuli/\(file)"))
                    == Data(contentsOf: study.appendingPathComponent("stimuli/\(file)")),
                "the stimuli, from the database")
        }
        let empty = try run("empty")
        #expect(empty.status == 1 && empty.stderr.contains("no participant has been measured yet"), "\(empty.stderr)")

        // Wrong things, each named; the password never printed.
        let again = try run("again")
        #expect(again.status == 1 && again.stderr.contains("is not an empty folder"), "\(again.stderr)")
        let unknown = try run("unknown")
        #expect(unknown.status == 1 && unknown.stderr.contains("holds no study of this name"), "\(unknown.stderr)")
        let password = try run("password")
        #expect(password.status == 1 && password.stderr.contains("refused user mien's password"), "\(password.stderr)")
        #expect(!password.stderr.contains("wrong-secret") && !unknown.stderr.contains(server.password))
        let noStore = try run("noStore")
        #expect(noStore.status == 64 && noStore.stderr.contains("--store (or MIEN_STUDIES_URL)"), "\(noStore.stderr)")

        // Issue 77: the registered folder is not the record and says so; `mien study` on it refuses, naming the
        // database (no password) and what reads it; the exported layout is read as it is.
        let note = try String(contentsOf: study.appendingPathComponent("record.json"), encoding: .utf8)
        #expect(note.contains("\"study\" : \"ad\"") && !note.contains(server.password), "\(note)")
        let onFolder = try run("folder")
        #expect(
            onFolder.status == 64 && onFolder.stderr.contains("is a study kept in PostgreSQL")
                && onFolder.stderr.contains("mien study export ad") && !onFolder.stderr.contains(server.password),
            "\(onFolder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: export.appendingPathComponent("record.json").path))
        let fromExport = try run("fromExport")
        #expect(!fromExport.stderr.contains("kept in PostgreSQL"), "\(fromExport.stderr)")
    }
}
