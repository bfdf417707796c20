import ArgumentParser

/// `mien study`: aggregate a panel (`mien study MANIFEST`, the default) or make a study folder to collect one
/// from a link (`mien study init`).
struct StudyGroup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Aggregate a panel's recordings on stimulus time, or make a study to collect one from a link.",
        discussion: """
            `mien study MANIFEST --output DIR` is `mien study aggregate`: see `mien study aggregate --help`. \
            `mien study init DIR --stimulus ad.mp4` makes a study folder that `mien serve --studies` serves. \
            `mien study export STUDY DIR --store URL` writes a study collected in a database as that folder.
            """,
        subcommands: [StudyCommand.self, StudyInit.self, StudyExport.self], defaultSubcommand: StudyCommand.self)
}
