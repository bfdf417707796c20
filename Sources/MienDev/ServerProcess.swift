import Foundation
import Glibc
import Mien

/// `mien serve --port 0` in a child process: its port (read from its first line) and PID, stopped by PID.
final class ServerProcess: @unchecked Sendable {
    // Set once in `init`, then read-only.
    let process = Process()
    let port: Int
    var pid: Int32 { process.processIdentifier }

    /// - Parameters:
    ///   - log: a file that receives what the server logs (else it is read and dropped).
    ///   - environment: variables set for the server on top of this process's.
    ///   - port: the port to listen on (0: one the system picks; a replica restarted by `MienDev fleet-faults` takes
    ///     its old one, which the balancer knows).
    init(
        mien: String, maximumSessions: Int, arguments: [String] = [], log: URL? = nil,
        environment: [String: String] = [:], port: Int = 0
    ) throws {
        process.executableURL = URL(fileURLWithPath: mien)
        process.arguments = ["serve", "--port", "\(port)", "--max-sessions", "\(maximumSessions)"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The service may log before it listens (a served study's line); its port is on the "listening on" line.
        var text = ""
        var port: Int?
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, port == nil {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
                let portText = line.split(separator: ":").last?.split(separator: "/").first
            {
                port = Int(portText)
            }
        }
        guard let port else {
            process.terminate()
            throw MienError(.internalFailure, "mien serve did not say where it listens: \(text)", input: mien)
        }
        self.port = port
        // Read what it logs from now on (a line per study event), so a full pipe never stalls it. A thread of its
        // own, not a readabilityHandler: a handler ending at the end of the pipe of a SIGKILLed server was seen to
        // crash libdispatch's event loop.
        let reading = errors.fileHandleForReading
        let file = log.flatMap { url -> FileHandle? in
            // A restarted replica's log goes on after its earlier run's.
            if let handle = try? FileHandle(forWritingTo: url) {
                handle.seekToEndOfFile()
                handle.write(Data(text.utf8))
                return handle
            }
            guard FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8)) else { return nil }
            return try? FileHandle(forWritingTo: url)
        }
        Thread.detachNewThread {
            file?.seekToEndOfFile()
            while true {
                let data = reading.availableData
                if data.isEmpty { break }  // it exited
                file?.write(data)
            }
            try? file?.close()
        }
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
