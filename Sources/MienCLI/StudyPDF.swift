import Foundation
import Mien

/// `mien study --pdf FILE`: study.html printed by a headless Chromium found on PATH (issue 98 item 6).
///
/// Chromium is found, never required: Mien ships none (it is not ours to ship, and a PDF is one way to read a page
/// any browser prints). The page's print style puts each stimulus's verdict on a page of its own, first, and keeps
/// charts and the KPI table whole.
enum StudyPDF {
    /// The programs looked for, in this order.
    static let browsers = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
    /// The longest a print may take, in seconds.
    static let timeout = 120.0

    /// The first browser of `browsers` on `PATH`, if any.
    static func browser(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for name in browsers {
            for folder in (path ?? "").split(separator: ":") {
                let candidate = "\(folder)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// Prints `html` to `pdf`.
    /// - Throws: `MienError` `.notFound` naming the programs looked for when none is on PATH; `.ioFailure` when
    ///   the browser fails, takes longer than `timeout`, or writes nothing.
    static func print(_ html: String, to pdf: String) throws {
        guard let browser = browser() else {
            throw MienError(
                .notFound,
                "no headless Chromium on PATH (\(browsers.joined(separator: ", "))): the PDF is not written; study.html and the tables are, and study.html prints to the same pages from any browser",
                input: pdf)
        }
        let target = URL(fileURLWithPath: pdf).standardizedFileURL.path
        if FileManager.default.fileExists(atPath: target) {
            do {  // an old PDF must not pass for this one
                try FileManager.default.removeItem(atPath: target)
            } catch {
                throw MienError(.ioFailure, "cannot replace it: \(error.localizedDescription)", input: pdf)
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        // Root (a container) cannot use Chromium's sandbox; the page is the one mien just wrote, with no script
        // from elsewhere.
        let sandbox = geteuid() == 0 ? ["--no-sandbox"] : []
        process.arguments =
            ["--headless", "--disable-gpu", "--no-pdf-header-footer", "--print-to-pdf=\(target)"] + sandbox
            + [URL(fileURLWithPath: html).standardizedFileURL.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw MienError(.ioFailure, "\(browser) could not be started: \(error.localizedDescription)", input: pdf)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw MienError(
                .ioFailure, "\(browser) did not print within \(ResultTable.number(timeout, places: 0)) s", input: pdf)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        guard process.terminationStatus == 0, size > 0 else {
            throw MienError(
                .ioFailure, "\(browser) printed nothing (exit status \(process.terminationStatus))", input: pdf)
        }
    }
}
