import Foundation
import Mien
import MienCore
import MienStudies

/// A study for a deck (issue 98 item 6): `--pdf` and `--export-charts`, made from what `mien study` just wrote.
extension StudyCommand {
    /// `--pdf` and `--export-charts`, once everything else is written (`HeadlessChromium`, `StudyPage.chartFiles`).
    func deck() async throws {
        guard let output, !listRecordings, pdf != nil || exportCharts != nil else { return }
        let html = (output as NSString).appendingPathComponent("study.html")
        guard FileManager.default.fileExists(atPath: html) else { return }
        let (pdf, charts) = (pdf, exportCharts)
        let problems = await BlockingWork.run { () -> [MienError] in
            var problems: [MienError] = []
            if let charts {
                do {
                    try Self.exportCharts(from: output, to: charts)
                } catch {
                    problems.append((error as? MienError) ?? MienError(.ioFailure, "\(error)", input: charts))
                }
            }
            if let pdf {
                do {
                    try HeadlessChromium.print(html, to: pdf)
                } catch {
                    problems.append((error as? MienError) ?? MienError(.ioFailure, "\(error)", input: pdf))
                }
            }
            return problems
        }
        for problem in problems { Diagnostics.report(problem) }
        if !problems.isEmpty { throw ExitStatus.inputFailed }
    }

    /// Writes each chart of the study in `output` (its study.json) into `folder` as SVG, then as PNG.
    static func exportCharts(from output: String, to folder: String) throws {
        let study = try StudyResultsFolder(folder: output).study
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw MienError(.ioFailure, "cannot create the charts' folder", input: folder)
        }
        let files = try StudyPage.chartFiles(study)
        for file in files {
            let written = try AtomicFile(path: (folder as NSString).appendingPathComponent(file.name))
            try written.write(file.svg)
            try written.commit()
        }
        for file in files {
            let svg = (folder as NSString).appendingPathComponent(file.name)
            try HeadlessChromium.picture(
                svg, to: String(svg.dropLast(4)) + ".png", width: file.width, height: file.height)
        }
    }
}
