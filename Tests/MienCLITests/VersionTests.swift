import Foundation
import MienTesting
import Testing

/// One version for every artifact: what `mien --version` prints, the commit it was built from, and the
/// changelog's latest release (the tarball, the .deb and the image take their version from the same file).
// Ten minutes, as every suite: a limit catches a hang, and on 2 cores the synchronous command-line suites can hold
// both cooperative threads for over a minute before this one runs.
@Suite("mien --version", .timeLimit(.minutes(10)))
struct VersionTests {
    @Test func version_namesTheRelease_theCommit_andTheLibraries() throws {
        let result = try runMien(["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let pattern =
            #/^mien (\d+\.\d+\.\d+) \(commit ([0-9a-f]{12}(-dirty)?|unknown); OpenCV 4\.6\.\d+, OpenVINO \S+\)$/#
        let match = try #require(line.wholeMatch(of: pattern), "unexpected --version: \(line)")
        let head = try? runProgram("/usr/bin/git", ["rev-parse", "--short=12", "HEAD"])
        if let head, head.status == 0 {
            // A build from a checkout names the checkout's commit (SwiftPM evaluates the manifest anew for it).
            #expect(match.output.2.hasPrefix(head.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let changelog = try String(
            contentsOf: SampleMedia.repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let latest = changelog.firstMatch(of: #/\n## \[(\d+\.\d+\.\d+)\]/#)?.output.1
        #expect(latest.map(String.init) == String(match.output.1), "CHANGELOG.md's latest release is not the version")
    }
}
