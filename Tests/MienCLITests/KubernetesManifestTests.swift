import ArgumentParser
import Foundation
import MienService
import MienTesting
import Testing

@testable import MienCLI

/// The `mien` command lines in deploy/kubernetes parse and validate as `mien serve` would take them in a pod, the
/// secrets' values standing in for the environment (`make lint` checks the manifests against Kubernetes' schemas).
@Suite("deploy/kubernetes: the manifests' command lines")
struct KubernetesManifestTests {
    static func manifest(_ file: String) throws -> [String] {
        try String(
            contentsOf: SampleMedia.repositoryRoot.appendingPathComponent("deploy/kubernetes/\(file)"), encoding: .utf8
        ).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The `args: [...]` lines of a manifest, each split into its words.
    static func commandLines(_ lines: [String]) -> [[String]] {
        lines.compactMap { trimmed -> [String]? in
            guard trimmed.hasPrefix("args: ["), trimmed.hasSuffix("]") else { return nil }
            return trimmed.dropFirst("args: [".count).dropLast().split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
    }

    @Test func studies_deploymentsCommandLine_isAValidServe() throws {
        let manifest = try Self.manifest("mien-studies.yaml")
        let lines = Self.commandLines(manifest)
        let words = try #require(lines.first, "mien-studies.yaml has an args: line")
        #expect(lines.count == 1 && words.first == "serve")
        // The Secret's files (issue 96: mounted, not environment variables), stood in for by files of the test's.
        let secrets = FileManager.default.temporaryDirectory.appendingPathComponent("mien-secrets-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: secrets) }
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        try Data("from-the-secret\n".utf8).write(to: secrets.appendingPathComponent("token"))
        try Data("postgres://mien:secret@db:5432/mien?sslmode=verify-full\n".utf8).write(
            to: secrets.appendingPathComponent("studies-url"))
        #expect(words.contains("/run/secrets/mien/token") && words.contains("/run/secrets/mien/studies-url"))
        #expect(!manifest.contains { $0.contains("MIEN_STUDIES_URL") || $0.contains("MIEN_TOKEN") })
        let serve = try Serve.parse(
            words.dropFirst().map { $0.replacingOccurrences(of: "/run/secrets/mien", with: secrets.path) })
        #expect(try serve.options().studiesStore?.hasPrefix("postgres://mien:secret@db") == true)
        #expect(serve.host == "0.0.0.0" && serve.studies == "/studies")
        #expect(serve.drain > 0, "participants in a stimulus may finish it on SIGTERM")
        let grace = try #require(
            manifest.first { $0.hasPrefix("terminationGracePeriodSeconds:") }.flatMap {
                Double($0.dropFirst("terminationGracePeriodSeconds:".count).trimmingCharacters(in: .whitespaces))
            })
        #expect(grace > serve.drain + Serve.shutdownGrace, "Kubernetes waits longer than the drain and the shutdown")
        let rate = try #require(serve.analysisRate)
        #expect(rate == 2 * 63, "two cores at the measured frames per core")
        // /readyz asks the database (up to 2 s): a probe's 1-s default timeout failed it (issue 77).
        let timeouts = manifest.filter { $0.hasPrefix("timeoutSeconds:") }.compactMap {
            Int($0.dropFirst("timeoutSeconds:".count).trimmingCharacters(in: .whitespaces))
        }
        #expect(timeouts.count == 2 && timeouts.allSatisfy { $0 >= 3 }, "both probes wait past the database's 2 s")
        #expect(manifest.contains { $0.hasPrefix("storageClassName:") }, "the shared volume's class is stated")
        // The annotation-discovered scrape cannot send the token: it reads the metrics port (issue 77).
        let port = try #require(serve.metricsPort)
        #expect(manifest.contains("prometheus.io/port: \"\(port)\""))
        #expect(manifest.contains("- { name: metrics, containerPort: \(port) }"))
        // The autoscaler on sockets and the queue, up to the docs' 1,000-place arithmetic; the metrics port (no token)
        // open to the monitoring namespace only.
        #expect(manifest.contains("maxReplicas: 16") && manifest.contains("metric: { name: mien_study_waiting }"))
        #expect(manifest.contains("kind: NetworkPolicy") && manifest.contains("- { protocol: TCP, port: \(port) }"))
    }

    @Test func wrongFlag_isRefusedByTheSameParse() {
        #expect(throws: (any Error).self) { try Serve.parse(["--host", "0.0.0.0", "--drian", "120", "--token", "t"]) }
        #expect(throws: (any Error).self) { try Serve.parse(["--drain", "-1"]) }
    }
}
