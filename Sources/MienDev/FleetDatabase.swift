import Foundation
import Mien
import MienTesting

/// Reads the fleet's PostgreSQL with Debian's `psql` (the password in its environment, never on a command line).
struct FleetDatabase {
    let server: PostgresServer

    /// The study's generation: one more for every change a replica made to it (consent, a stimulus begun or ended,
    /// completion, a participant marked, an erasure).
    func studyGeneration(_ study: String) throws -> Int {
        try count("SELECT generation FROM mien_studies WHERE name = '\(study)'")
    }

    /// A query's one number.
    /// - Throws: when psql is missing or fails, with what it said.
    func count(_ sql: String) throws -> Int {
        let text = try value(sql)
        guard let number = Int(text) else { throw MienError(.internalFailure, "psql: \(text)", input: sql) }
        return number
    }

    /// A query's one value, as psql prints it unaligned (a JSON aggregate for anything larger).
    /// - Throws: when psql is missing or fails, with what it said.
    func value(_ sql: String) throws -> String {
        guard let bin = PostgresServer.binaries(),
            case let psql = "\(bin)/psql", FileManager.default.isExecutableFile(atPath: psql)
        else {
            throw MienError(.notFound, "psql is not installed (apt-get install postgresql-15)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: psql)
        process.arguments = [
            "-h", "127.0.0.1", "-p", "\(server.port)", "-U", server.user, "-d", "postgres", "-Atc", sql,
        ]
        process.environment = ["PGPASSWORD": server.password, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else { throw MienError(.internalFailure, "psql: \(text)", input: sql) }
        return text
    }
}
