import ArgumentParser
import Foundation
import MienTesting

/// `MienDev study-recordings`: writes the study tests' recordings (`StudyRecordings`) into a folder, for the
/// worked example of docs/studies.md and for timing `mien study`.
struct StudyRecordingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study-recordings",
        abstract: "Write the study tests' recordings (talking head, the same late, grass, yalefaces viewers).")

    @Argument(help: "Folder to write into (created if missing).")
    var folder: String

    @Option(help: "yalefaces subjects to make viewers of (subject01 ... subject15).")
    var subjects: [String] = ["subject01", "subject02", "subject03"]

    @Option(help: "Instead: a panel of this many viewers of versions A and B of an 8 s advert, and its manifest.csv.")
    var panel: Int?

    @Option(help: "The panel's advert, seconds.")
    var seconds = 8.0

    @Option(help: "The panel's frame rate.")
    var fps = 25.0

    func run() throws {
        guard let root = SampleMedia.evaluationDirectory else {
            throw ValidationError("needs the evaluation data (../shared/eval or EVAL_DIR)")
        }
        let url = URL(fileURLWithPath: folder)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        if let panel {
            print(
                try StudyRecordings.writePanel(in: url, evaluation: root, viewers: panel, seconds: seconds, fps: fps))
            return
        }
        let talking = try StudyRecordings.writeTalking(in: url, evaluation: root)
        print(talking.0, talking.1, talking.2, separator: "\n")
        for subject in subjects {
            let (neutral, smile) = try StudyRecordings.writeViewer(subject, in: url, evaluation: root)
            print(neutral, smile, separator: "\n")
        }
    }
}
