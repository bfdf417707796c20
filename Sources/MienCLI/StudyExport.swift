import ArgumentParser
import Foundation
import Mien
import MienService
import MienStudies

/// `mien study export STUDY DIR --store URL`: a collected study in a database written out as the study folder's
/// layout, which `mien study DIR` aggregates and anyone can read without Mien.
struct StudyExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a collected study from its PostgreSQL database as a study folder (mien study DIR reads it).",
        discussion: """
            DIR gets settings.json, consent.md, STORED.md, stimuli/, fieldwork.json, manifest.csv, answers.csv (a \
            study with --questions: every participant's answers) and \
            participants/<id>/ (session.json, and each stimulus's .jsonl, .csv, .events.csv and .summary.json, \
            earlier attempts as <stimulus>.attempt<n>.*, and as <stimulus>.unrecovered<n>.* an attempt a killed \
            server left that the study folder never set aside), as mien serve --studies writes a study folder. Webcam \
            recordings (--record) are not in the database: copy them from the folder the servers share.
            """)

    @Argument(help: "The study's name (its folder's name when it was made with mien study init --store).")
    var study: String

    @Argument(help: "A new or empty folder to write.")
    var output: String

    @Option(
        help:
            "The PostgreSQL database (postgres://USER:PASSWORD@HOST:PORT/DATABASE, as mien serve --store; default: $MIEN_STUDIES_URL)."
    )
    var store: String?

    @Option(help: "A file whose first line is the --store URL (keeps its password off the command line).")
    var storeFile: String?

    func validate() throws {
        guard try resolvedStore() != nil else {
            throw ValidationError(
                "--store (or MIEN_STUDIES_URL) names the database the study is in (--store-file: a file holding it)")
        }
        guard CollectionSettings.isName(study) else { throw ValidationError("'\(study)' is not a study's name") }
    }

    private func resolvedStore() throws -> String? { try Secret.store.resolve(store, file: storeFile) }

    func run() async throws {
        guard let store = try resolvedStore() else { return }
        Secret.warnIfPasswordInArguments(self.store, option: "--store", command: "mien study export")
        let (study, folder) = (study, URL(fileURLWithPath: output))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let archive = try await StudyArchive.open(url: store, study: study)
            let (source, participants) = (archive.source, archive.sessions.count)
            let attempts: Int
            do {
                attempts = try await archive.export(to: folder)
                await archive.close()
            } catch {
                await archive.close()
                throw error
            }
            Console.error(
                "mien study export: \(source) study \(study): \(participants) participant\(participants == 1 ? "" : "s"), \(attempts) stimulus attempt\(attempts == 1 ? "" : "s") in \(ProgressBoard.seconds(clock.now - start)) s; \(folder.path)\n"
            )
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
    }
}
