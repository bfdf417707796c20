import ArgumentParser
import Foundation
import MienService
import Testing

@testable import MienCLI

/// Issue 77: the token and the database URL reach a command without being on its command line (a file, the
/// environment), and a file that cannot be used is said without its content.
@Suite("secrets off the command line")
struct SecretTests {
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mien-secret-\(UUID().uuidString)")
            .path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func serve_takesTheTokenAndTheStoreFromFiles() throws {
        let token = try Self.file("s3cret-token\n")
        let store = try Self.file("  postgres://mien:hunter2@db:5432/mien?sslmode=verify-full  \n# a comment\n")
        defer {
            try? FileManager.default.removeItem(atPath: token)
            try? FileManager.default.removeItem(atPath: store)
        }
        let serve = try Serve.parse(
            ["--host", "0.0.0.0", "--token-file", token, "--studies", "/studies", "--store-file", store])
        let options = try serve.options()
        #expect(options.token == "s3cret-token")
        #expect(options.studiesStore == "postgres://mien:hunter2@db:5432/mien?sslmode=verify-full")
    }

    @Test func aSecretGivenTwice_orAnUnusableFile_isRefusedWithoutItsContent() throws {
        let empty = try Self.file("\n\n")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(throws: (any Error).self) {
            try Serve.parse(["--token", "a", "--token-file", empty]).options()
        }
        #expect {
            try Secret.token.resolve(nil, file: empty)
        } throws: { "\($0)".contains("--token-file \(empty): the file is empty") }
        #expect {
            try Secret.store.resolve(nil, file: "/nonexistent/mien-url")
        } throws: { "\($0)".contains("--store-file /nonexistent/mien-url: cannot be read") }
    }

    @Test func withoutOptions_theEnvironmentIsRead() throws {
        #expect(try Secret.token.resolve(nil, file: nil, environment: ["MIEN_TOKEN": "from-env"]) == "from-env")
        #expect(try Secret.token.resolve(nil, file: nil, environment: ["MIEN_TOKEN": ""]) == nil)
        #expect(try Secret.store.resolve("given", file: nil, environment: ["MIEN_STUDIES_URL": "env"]) == "given")
    }
}
