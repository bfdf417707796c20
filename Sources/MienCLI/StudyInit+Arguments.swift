import ArgumentParser
import Foundation
import Mien
import MienStudies

/// The option types `mien study init` parses.
extension CollectionSettings.Order: ExpressibleByArgument {}
extension PanelConventions: ExpressibleByArgument {}

/// `mien study init`'s files and lists that become settings: the questions, the marks and the groups' words.
extension StudyInit {
    /// `--questions FILE` read and checked against the study's stimuli (nil without it).
    func askedQuestions(stimuli: [String]) throws -> StudyQuestions? {
        guard let questions else { return nil }
        let text: String
        do {
            text = try String(contentsOfFile: questions, encoding: .utf8)
        } catch {
            throw ValidationError(
                "--questions \(questions): cannot be read as UTF-8 text (\(error.localizedDescription))")
        }
        do {
            return try StudyQuestions(parsing: text, file: questions, stimuli: stimuli)
        } catch let error as MienError {
            throw ValidationError("--questions \(questions): \(error.message)")
        }
    }

    /// `--marks` values ([STIMULUS:]NAME=SECONDS[,...]), checked when the settings are.
    func markedMoments(stimuli: [String]) throws -> [StudyMark] {
        do {
            return try marks.flatMap { try StudyMark.parse($0, stimuli: stimuli) }
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    /// `--group-label GROUP=TEXT` values (nil without any), as `mien study` reads them.
    func groupLabels() throws -> [String: String]? {
        guard !groupLabel.isEmpty else { return nil }
        return try StudyCommand.groupLabels(groupLabel, given: [:], groups: nil)
    }
}
