import ArgumentParser
import Foundation
import Mien
import MienStudies

/// `mien norms`: norms of the team's own studies, that `mien study --norms` places a stimulus against.
struct NormsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "norms",
        abstract: "Keep norms of your own studies' stimuli, that mien study --norms compares a stimulus with.",
        discussion: """
            A norm is a file (NORMS, made by the first add) or, with --store, a norm of that name in a study \
            database. Each stimulus of a study folder (mien study --output) is kept as its figures: per headline \
            metric (smile, joy, surprise, valence, engagement) the mean over its participants of their mean, peak \
            and last quarter's slope, the response after each mark, the share watched, and the scale answers; with \
            tags to filter by. docs/studies.md, "Norms of your own".
            """,
        subcommands: [NormsAdd.self, NormsList.self, NormsRemove.self])
}

/// `mien norms add NORMS RESULTS --tag category=snacks`.
struct NormsAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add each stimulus of a study folder (mien study --output) to a norm.")

    @Argument(help: "The norm: a file (made when missing), or with --store its name in the database.")
    var norms: String

    @Argument(help: "A folder mien study wrote (its study.json, and answers.csv when there were questions).")
    var results: String

    @Option(help: "A tag to filter by, KEY=VALUE (category=snacks, region=UK); repeat for more.")
    var tag: [String] = []

    @Option(help: "The study's name in the norm's IDs (default: its title, else the folder's name).")
    var name: String?

    @Option(help: "Add only this stimulus (repeat for more; default: every stimulus).")
    var stimulus: [String] = []

    @OptionGroup var storeArguments: NormsStoreArguments

    func run() throws {
        let store = try storeArguments.store(norms, command: "mien norms add")
        let entries: [NormEntry]
        do {
            let tags = try NormEntry.tags(tag, option: "--tag")
            let folder = try StudyResultsFolder(folder: results)
            let unknown = stimulus.filter { !folder.study.stimuli.contains($0) }
            if !unknown.isEmpty {
                throw MienError(
                    .invalidArgument,
                    "--stimulus \(unknown.joined(separator: ", ")): not in the study (\(folder.study.stimuli.joined(separator: ", ")))"
                )
            }
            let name = self.name ?? folder.name
            guard !name.isEmpty, !name.contains("/"), !name.contains(where: \.isNewline) else {
                throw MienError(.invalidArgument, "--name \(name): a name of one line without '/'")
            }
            entries = try (stimulus.isEmpty ? folder.study.stimuli : stimulus).map { stimulus in
                try NormEntry.make(
                    folder.study, stimulus: stimulus, name: name, answers: folder.answers[stimulus] ?? [:], tags: tags,
                    generator: folder.generator)
            }
        } catch let error as MienError {
            throw ValidationError(error.description)
        }
        let size: Int
        do {
            // Every stimulus of the folder or none: a refusal leaves the norm as it was.
            size = try store.transact { set in
                for entry in entries { try set.add(entry) }
                return set.entries.count
            }
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
        for entry in entries {
            print(
                "added \(entry.id): \(entry.participants) participant\(entry.participants == 1 ? "" : "s"), \(entry.figures.count) figures\(entry.tags.isEmpty ? "" : ", " + entry.tagWords)"
            )
        }
        Console.error("mien norms: \(store.description) holds \(size) stimul\(size == 1 ? "us" : "i")\n")
    }
}

/// `mien norms list NORMS`.
struct NormsList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List a norm's stimuli: ID, participants, length, bin, frames, tags, added.")

    @Argument(help: "The norm: a file, or with --store its name in the database.")
    var norms: String

    @Option(help: "Only stimuli with this tag, KEY=VALUE (repeat: all of them).")
    var filter: [String] = []

    @OptionGroup var storeArguments: NormsStoreArguments

    func run() throws {
        let store = try storeArguments.store(norms, command: "mien norms list")
        let filters: [String: String]
        do {
            filters = try NormEntry.tags(filter, option: "--filter")
        } catch let error as MienError {
            throw ValidationError(error.description)
        }
        let set: NormSet
        do {
            set = try store.read()
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
        let entries = set.entries.filter { $0.matches(filters) }
        print("id\tparticipants\tseconds\tbin\tframes\ttags\tadded")
        for entry in entries {
            print(
                [
                    entry.id, "\(entry.participants)", ResultTable.number(entry.seconds, places: 1),
                    ResultTable.number(entry.bin, places: 3), entry.allFrames ? "all" : "watched", entry.tagWords,
                    entry.added,
                ].joined(separator: "\t"))
        }
        let floor =
            entries.count < NormComparison.floor
            ? "; below \(NormComparison.floor), mien study --norms places nothing against it" : ""
        Console.error(
            "mien norms: \(entries.count) of \(set.entries.count) stimuli in \(store.description)\(filters.isEmpty ? "" : " match the filters")\(floor)\n"
        )
    }
}

/// `mien norms remove NORMS ID...`.
struct NormsRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove stimuli from a norm by their IDs (STUDY/STIMULUS, as list shows).")

    @Argument(help: "The norm: a file, or with --store its name in the database.")
    var norms: String

    @Argument(help: "The IDs to remove.")
    var ids: [String]

    @OptionGroup var storeArguments: NormsStoreArguments

    func validate() throws {
        if ids.isEmpty { throw ValidationError("name at least one ID to remove (mien norms list shows them)") }
    }

    func run() throws {
        let store = try storeArguments.store(norms, command: "mien norms remove")
        let ids = ids
        do {
            let removed = try store.transact { set in try ids.map { try set.remove($0).id } }
            for id in removed { print("removed \(id)") }
        } catch {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
    }
}
