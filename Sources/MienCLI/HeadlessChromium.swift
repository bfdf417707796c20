import Foundation
import Mien

/// A headless Chromium found on PATH, for the deck (issue 98 item 6): `mien study --pdf FILE` prints study.html, and
/// `--export-charts DIR` draws each chart's SVG as a PNG.
///
/// Chromium is found, never required: Mien ships none (it is not ours to ship, and a PDF or a PNG is one way to read
/// what any browser shows). The page's print style puts each stimulus's verdict on a page of its own, first, and
/// keeps charts and the KPI table whole.
enum HeadlessChromium {
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
        try run(
            ["--no-pdf-header-footer", "--print-to-pdf=\(absolute(pdf))", URL(fileURLWithPath: html).absoluteString],
            writing: pdf,
            what:
                "the PDF is not written; study.html and the tables are, and study.html prints to the same pages from any browser"
        )
    }

    /// Draws the SVG file `svg` as `png`, `width` × `height` CSS pixels at twice the pixels (for a slide).
    /// - Throws: as `print`.
    static func picture(_ svg: String, to png: String, width: Int, height: Int) throws {
        try run(
            [
                "--hide-scrollbars", "--force-device-scale-factor=2", "--window-size=\(width),\(height)",
                "--screenshot=\(absolute(png))", URL(fileURLWithPath: svg).absoluteString,
            ], writing: png, what: "the PNGs are not written; the SVGs are")
    }

    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// Runs the browser headless with `arguments` and checks it wrote `output`.
    private static func run(_ arguments: [String], writing output: String, what: String) throws {
        guard let browser = browser() else {
            throw MienError(
                .notFound, "no headless Chromium on PATH (\(browsers.joined(separator: ", "))): \(what)", input: output)
        }
        let target = absolute(output)
        if FileManager.default.fileExists(atPath: target) {
            do {  // an old file must not pass for this one
                try FileManager.default.removeItem(atPath: target)
            } catch {
                throw MienError(.ioFailure, "cannot replace it: \(error.localizedDescription)", input: output)
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        // Root (a container) cannot use Chromium's sandbox; the file is one mien just wrote, with no script from
        // elsewhere.
        let sandbox = geteuid() == 0 ? ["--no-sandbox"] : []
        process.arguments = ["--headless", "--disable-gpu"] + sandbox + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw MienError(.ioFailure, "\(browser) could not be started: \(error.localizedDescription)", input: output)
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw MienError(
                .ioFailure, "\(browser) did not finish within \(ResultTable.number(timeout, places: 0)) s",
                input: output)
        }
        // A file that cannot be read back counts as not written: the message below says so.
        let size: Int
        do {
            size = try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int ?? 0
        } catch {
            size = 0
        }
        guard process.terminationStatus == 0, size > 0 else {
            throw MienError(
                .ioFailure, "\(browser) wrote nothing (exit status \(process.terminationStatus))", input: output)
        }
    }
}
