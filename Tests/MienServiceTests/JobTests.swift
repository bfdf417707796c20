import Foundation
import Hummingbird
import HummingbirdTesting
import Mien
import MienTesting
import NIOCore
import Synchronization
import Testing

@testable import MienService

/// `/v1/jobs`: uploads analysed by the same Detector and writers as the command line, their outputs, and
/// the bad inputs.
@Suite("mien serve: jobs", .serialized, .timeLimit(.minutes(10)))
struct JobTests {
    static func service(maximumUploadBytes: Int = 64 << 20, maximumJobs: Int = 8) throws -> (MienService, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mien-job-tests-\(UUID())")
        let service = try MienService(
            options: ServiceOptions(
                port: 0, maximumUploadBytes: maximumUploadBytes, maximumJobs: maximumJobs, jobsFolder: folder.path),
            models: ModelStore())
        return (service, folder)
    }

    static func clip(frames: Int = 20, width: Int = 320, height: Int = 240) throws -> (URL, [UInt8]) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mien-job-clip-\(UUID()).mp4")
        try SampleMedia.astronautClip(width: width, height: height, frameCount: frames, framesPerSecond: 15).write(
            to: url.path)
        return (url, [UInt8](try Data(contentsOf: url)))
    }

    static func object(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data([UInt8](buffer: buffer)))) as? [String: Any] ?? [:]
    }

    /// Polls the job until it leaves `queued` / `running` (at most 60 s).
    static func finished(_ id: String, _ client: some TestClientProtocol) async throws -> [String: Any] {
        for _ in 0..<600 {
            let status = try await client.execute(uri: "/v1/jobs/\(id)", method: .get) { Self.object($0.body) }
            if let state = status["state"] as? String, state != "queued", state != "running" { return status }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("job \(id) did not finish in 60 s")
        return [:]
    }

    @Test func videoJob_givesTheCommandLinesResults_thenIsDeletedWithItsFiles() async throws {
        let (clipURL, clip) = try Self.clip()
        defer { try? FileManager.default.removeItem(at: clipURL) }
        let (service, folder) = try Self.service()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, jsonl, csv, report, afterDelete) = try await service.application().test(.live) { client in
            let id = try await client.execute(
                uri: "/v1/jobs?name=talk.mp4&metrics=expressions", method: .post, body: ByteBuffer(bytes: clip)
            ) { response -> String in
                #expect(response.status == .accepted)
                let id = Self.object(response.body)["id"] as? String ?? ""
                #expect(response.headers[.location] == "/v1/jobs/\(id)")
                return id
            }
            let status = try await Self.finished(id, client)
            let jsonl = try await client.execute(uri: "/v1/jobs/\(id)/results.jsonl", method: .get) {
                String(buffer: $0.body)
            }
            let csv = try await client.execute(uri: "/v1/jobs/\(id)/results.csv", method: .get) {
                String(buffer: $0.body)
            }
            let report = try await client.execute(uri: "/v1/jobs/\(id)/report.html", method: .get) {
                String(buffer: $0.body)
            }
            // The job's episodes, as `mien analyze` writes them: a header and her smile through the clip.
            let events = try await client.execute(uri: "/v1/jobs/\(id)/events.csv", method: .get) {
                String(buffer: $0.body)
            }
            #expect(events.hasPrefix(EventTable.headerLine + "\n"), "\(events)")
            #expect(events.contains(",expressions.smile,"), "\(events)")
            try await client.execute(uri: "/v1/jobs/\(id)", method: .delete) { #expect($0.status == .noContent) }
            let afterDelete = try await client.execute(uri: "/v1/jobs/\(id)", method: .get) { $0.status }
            return (status, jsonl, csv, report, afterDelete)
        }
        #expect(status["state"] as? String == "done", "\(status)")
        let statusJSON = String(decoding: try JSONSerialization.data(withJSONObject: status), as: UTF8.self)
        #expect(try OpenAPIDocument().schema("JobStatus").failures(ofJSON: statusJSON).isEmpty, "\(statusJSON)")
        #expect(status["frames"] as? Int == 20 && status["totalFrames"] as? Int == 20)
        #expect(afterDelete == .notFound)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "the job's files are gone")
        // The same Detector and writer as the command line, on the same file, gives the same lines.
        // Written by the detector's thread, read after `wait()`.
        let direct = Mutex<[String]>([])
        let writer = JSONLinesWriter(stream: { line in
            direct.withLock { $0.append(String(decoding: line, as: UTF8.self)) }
        })
        let detector = Detector(
            source: .frames(name: "talk.mp4", open: { try InputSource.open(path: clipURL.path) }),
            options: try DetectorOptions(metrics: Set<Metric>.allExpressions),
            models: try ModelStore(), writers: [writer])
        try detector.start()
        detector.wait()
        detector.stop()
        #expect(jsonl == direct.withLock { $0.joined() }, "the job's results.jsonl differs from a direct run")
        #expect(csv.split(separator: "\n").count == 21, "a header and one row per frame with its face")
        #expect(report.contains("talk.mp4") && report.contains("<html"))
    }

    @Test func badUploads_areRefusedOrFailClearly_andLeaveNothingBehind() async throws {
        let (clipURL, clip) = try Self.clip(frames: 3, width: 64, height: 48)
        defer { try? FileManager.default.removeItem(at: clipURL) }
        let (service, folder) = try Self.service(maximumUploadBytes: max(4096, clip.count))
        defer { try? FileManager.default.removeItem(at: folder) }
        try await service.application().test(.live) { client in
            try await client.execute(uri: "/v1/jobs", method: .post, body: ByteBuffer()) { response in
                #expect(response.status == .badRequest)
                #expect((Self.object(response.body)["error"] as? [String: Any])?["code"] as? String == "corruptData")
            }
            try await client.execute(
                uri: "/v1/jobs?name=big.mp4", method: .post,
                body: ByteBuffer(repeating: 7, count: max(4096, clip.count) + 1)
            ) { response in
                #expect(response.status == .contentTooLarge)
            }
            try await client.execute(uri: "/v1/jobs?metrics=smiles", method: .post, body: ByteBuffer(string: "x")) {
                #expect($0.status == .badRequest)
            }
            // Neither a picture nor a video: refused at once, named by the client's name, not queued.
            try await client.execute(
                uri: "/v1/jobs?name=notes.mp4", method: .post, body: ByteBuffer(string: "not a video at all")
            ) { response in
                #expect(response.status == .unsupportedMediaType)
                let error = Self.object(response.body)["error"] as? [String: Any]
                #expect(error?["code"] as? String == "unsupportedFormat")
                #expect(error?["input"] as? String == "notes.mp4", "the error names the upload, not a server path")
                #expect(!"\(error ?? [:])".contains(folder.path), "the server's folder leaks into the error")
            }
            let id = try await client.execute(uri: "/v1/jobs", method: .post, body: ByteBuffer(bytes: clip)) {
                Self.object($0.body)["id"] as? String ?? ""
            }
            for bad in ["..%2F..%2Fetc%2Fpasswd", "not-a-job", id.uppercased(), "00000000-0000-0000-0000-000000000000"]
            {
                try await client.execute(uri: "/v1/jobs/\(bad)", method: .get) {
                    #expect($0.status == .notFound, "\(bad)")
                }
                try await client.execute(uri: "/v1/jobs/\(bad)", method: .delete) {
                    #expect($0.status == .notFound, "\(bad)")
                }
            }
            try await client.execute(uri: "/v1/jobs/\(id)", method: .delete) { #expect($0.status == .noContent) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing left behind")
    }

    @Test func interruptedJob_runsAgainWhenTheServiceRestarts() async throws {
        let (clipURL, clip) = try Self.clip(frames: 90)
        defer { try? FileManager.default.removeItem(at: clipURL) }
        let (first, folder) = try Self.service()
        defer { try? FileManager.default.removeItem(at: folder) }
        let id = try await first.application().test(.live) { client in
            // Held in the queue, so the stop finds it unfinished however fast the machine is.
            first.jobs.pause()
            let id = try await client.execute(
                uri: "/v1/jobs?name=long.mp4", method: .post, body: ByteBuffer(bytes: clip)
            ) {
                Self.object($0.body)["id"] as? String ?? ""
            }
            // As SIGTERM does: the waiting job is marked interrupted.
            await first.jobs.stop()
            let status = try await Self.finished(id, client)
            #expect(status["state"] as? String == "interrupted", "\(status)")
            #expect((status["error"] as? [String: Any])?["code"] as? String == "interrupted", "\(status)")
            return id
        }
        // What a run killed mid-job (kill -9) leaves: its outputs' temporary files.
        let jobFolder = folder.appendingPathComponent(id)
        for name in ["results.jsonl", "results.csv", "summary.json"] {
            let leftover = jobFolder.appendingPathComponent(".\(name).partial-99999-0").path
            #expect(FileManager.default.createFile(atPath: leftover, contents: Data(repeating: 65, count: 4096)))
        }
        // A new service on the same folder takes the job up again and runs it to the end.
        let second = try MienService(
            options: ServiceOptions(port: 0, jobsFolder: folder.path), models: ModelStore())
        let status = try await second.application().test(.live) { client in try await Self.finished(id, client) }
        #expect(status["state"] as? String == "done", "\(status)")
        #expect(status["frames"] as? Int == 90)
        // The killed run's `.partial-` files; not Foundation's own temporary file of a status being rewritten at
        // that moment (`.dat.nosync…`, seen once under load).
        let hidden = try FileManager.default.contentsOfDirectory(atPath: jobFolder.path).filter {
            $0.hasPrefix(".") && $0.contains(".partial-")
        }
        #expect(hidden.isEmpty, "the killed run's temporary files are gone: \(hidden)")
    }

    /// A job stopped mid-video (the service's SIGTERM) goes on, under the next service, from the snapshot its
    /// stop left: the results equal a direct run's, and the snapshot is gone once the job is done.
    @Test func jobStoppedMidVideo_goesOnFromItsSnapshot_underTheNextService() async throws {
        let (clipURL, clip) = try Self.clip(frames: 240)
        defer { try? FileManager.default.removeItem(at: clipURL) }
        let (first, folder) = try Self.service()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (id, framesDone) = try await first.application().test(.live) { client in
            let id = try await client.execute(
                uri: "/v1/jobs?name=long.mp4&metrics=expressions", method: .post, body: ByteBuffer(bytes: clip)
            ) { Self.object($0.body)["id"] as? String ?? "" }
            var frames = 0
            for _ in 0..<600 where frames < 40 {
                try await Task.sleep(for: .milliseconds(20))
                frames = try await client.execute(uri: "/v1/jobs/\(id)", method: .get) {
                    Self.object($0.body)["frames"] as? Int ?? 0
                }
            }
            await first.jobs.stop()
            let status = try await Self.finished(id, client)
            #expect(status["state"] as? String == "interrupted", "\(status)")
            return (id, frames)
        }
        let jobFolder = folder.appendingPathComponent(id)
        let snapshot = jobFolder.appendingPathComponent(".results.snapshot").path
        #expect(framesDone >= 40 && FileManager.default.fileExists(atPath: snapshot), "stopped after \(framesDone)")
        let second = try MienService(options: ServiceOptions(port: 0, jobsFolder: folder.path), models: ModelStore())
        let (status, jsonl) = try await second.application().test(.live) { client in
            let status = try await Self.finished(id, client)
            let jsonl = try await client.execute(uri: "/v1/jobs/\(id)/results.jsonl", method: .get) {
                String(buffer: $0.body)
            }
            return (status, jsonl)
        }
        #expect(status["state"] as? String == "done" && status["frames"] as? Int == 240, "\(status)")
        #expect(!FileManager.default.fileExists(atPath: snapshot), "a done job's snapshot is deleted")
        // Written by the detector's thread, read after `wait()`.
        let direct = Mutex<[String]>([])
        let writer = JSONLinesWriter(stream: { line in
            direct.withLock { $0.append(String(decoding: line, as: UTF8.self)) }
        })
        let detector = Detector(
            source: .frames(name: "long.mp4", open: { try InputSource.open(path: clipURL.path) }),
            options: try DetectorOptions(metrics: Set<Metric>.allExpressions), models: try ModelStore(),
            writers: [writer])
        try detector.start()
        detector.wait()
        detector.stop()
        #expect(jsonl == direct.withLock { $0.joined() }, "the resumed job's results.jsonl differs from a direct run")
    }

    @Test func fullQueue_refusesTheNextUpload() async throws {
        let (clipURL, clip) = try Self.clip()
        defer { try? FileManager.default.removeItem(at: clipURL) }
        let (service, folder) = try Self.service(maximumJobs: 1)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await service.application().test(.live) { client in
            // An upload still arriving holds the only place (held here as the service does while it streams
            // one in): a job that finishes faster than the next request cannot make this check pass or fail.
            let held = try await service.jobs.reserve()
            try await client.execute(uri: "/v1/jobs", method: .post, body: ByteBuffer(bytes: clip)) { response in
                #expect(response.status == .serviceUnavailable)
                #expect((Self.object(response.body)["error"] as? [String: Any])?["code"] as? String == "queueFull")
            }
            await #expect(throws: ServiceRefusal.self) { try await service.jobs.reserve() }
            // A failed upload gives its place back.
            await service.jobs.release(held.id)
            #expect(!FileManager.default.fileExists(atPath: held.folder.path))
            // A waiting job holds it too (paused, so it is still waiting at the next upload).
            service.jobs.pause()
            let first = try await client.execute(
                uri: "/v1/jobs?metrics=all", method: .post, body: ByteBuffer(bytes: clip)
            ) {
                #expect($0.status == .accepted)
                return Self.object($0.body)["id"] as? String ?? ""
            }
            try await client.execute(uri: "/v1/jobs", method: .post, body: ByteBuffer(bytes: clip)) {
                #expect($0.status == .serviceUnavailable)
            }
            // Cancelling the waiting job frees its place; the next upload waits, and runs to the end once resumed.
            try await client.execute(uri: "/v1/jobs/\(first)", method: .delete) { #expect($0.status == .noContent) }
            let second = try await client.execute(uri: "/v1/jobs", method: .post, body: ByteBuffer(bytes: clip)) {
                #expect($0.status == .accepted)
                return Self.object($0.body)["id"] as? String ?? ""
            }
            service.jobs.resume()
            let status = try await Self.finished(second, client)
            #expect(status["state"] as? String == "done", "\(status)")
        }
    }

    @Test func jobWhoseOutputCannotBeCreated_failsWithThatError_andListsNoResults() async throws {
        let (clipURL, clip) = try Self.clip(frames: 5)
        defer { try? FileManager.default.removeItem(at: clipURL) }
        let (service, folder) = try Self.service()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await service.application().test(.live) { client in
            service.jobs.pause()
            let id = try await client.execute(uri: "/v1/jobs", method: .post, body: ByteBuffer(bytes: clip)) {
                Self.object($0.body)["id"] as? String ?? ""
            }
            // A folder where the job's JSON Lines must go: the writer cannot be created.
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(id).appendingPathComponent("results.jsonl"),
                withIntermediateDirectories: false)
            service.jobs.resume()
            let status = try await Self.finished(id, client)
            #expect(status["state"] as? String == "failed", "\(status)")
            let error = status["error"] as? [String: Any]
            #expect(error?["code"] as? String == "ioFailure", "\(status)")
            #expect(error?["input"] as? String == "results.jsonl", "the output's name, not the server's path")
            #expect(status["results"] == nil, "no links to files that were never written")
            let statusJSON = String(decoding: try JSONSerialization.data(withJSONObject: status), as: UTF8.self)
            #expect(try OpenAPIDocument().schema("JobStatus").failures(ofJSON: statusJSON).isEmpty, "\(statusJSON)")
            #expect(!"\(status)".contains(folder.path), "the server's folder leaks into the status")
            // The job is there; its outputs never will be: a conflict with its state, not a missing resource.
            try await client.execute(uri: "/v1/jobs/\(id)/results.csv", method: .get) { response in
                #expect(response.status == .conflict)
                #expect((Self.object(response.body)["error"] as? [String: Any])?["code"] as? String == "notReady")
            }
            try await client.execute(uri: "/v1/jobs/\(id)/nothing.txt", method: .get) {
                #expect($0.status == .notFound)
            }
        }
    }
}
