import Foundation
import HTTPTypes
import Logging
import Mien
import MienCore
import MienStudies
import MienTesting
import Synchronization
import Testing

@testable import MienService

/// Per-frame results in PostgreSQL: kept byte for byte as the participant's files, waiting while the database does
/// not answer, bounded, read back for `mien study --store` and export, erased with the participant.
@Suite("per-frame results in PostgreSQL", .serialized)
struct StudyResultsDatabaseTests {
    /// The episodes a run finished at its end.
    final class FinalEpisodes: ResultWriter, Sendable {
        let episodes = Locked<[EpisodeEvent]>([])
        func write(_ result: DetectorResult, frame: Frame?) throws {}
        func finishEpisodes(_ episodes: [EpisodeEvent]) throws { self.episodes.withLock { $0 = episodes } }
        func finish(_ end: InputEnd) throws {}
        func fail(_ error: MienError) {}
    }

    /// A real analysis of the sample clip (30 frames of a face) into the files a stimulus socket writes.
    /// - Returns: the files, and the episodes finished at the end.
    static func measured(in folder: URL) throws -> (OutputFiles, [EpisodeEvent]) {
        let clip = folder.appendingPathComponent("clip.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 30).write(to: clip)
        let files = CollectionFolder.files(ofRecording: folder.appendingPathComponent("first").path)
        let final = FinalEpisodes()
        let detector = Detector(
            source: .file(path: clip), options: try CollectionAnalysis.options(), models: try ModelStore(),
            writers: try files.writers(input: "first", report: nil, generator: "test") + [final])
        try detector.start()
        detector.wait()
        return (files, final.episodes.withLock { $0 })
    }

    @Test func results_waitWhileTheDatabaseDoesNotAnswer_andAreKeptByteForByte_thenErasedWithTheParticipant()
        async throws
    {
        let server = try await PostgresServer.start()
        defer {
            server.resume()
            server.stop()
        }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let (files, finalEpisodes) = try await OffPool.run { try Self.measured(in: parent) }
        let jsonl = try Data(contentsOf: URL(fileURLWithPath: try #require(files.jsonl)))
        var results: [DetectorResult] = []
        try JSONLinesReader(path: try #require(files.jsonl)).forEachResult { results.append($0) }
        #expect(results.count == 30 && results.contains { !($0.faces ?? [:]).isEmpty }, "a face in the clip")

        let database = try await StudyDatabase.open(
            try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger, deadline: .seconds(10))
        defer { database.close() }
        let study = try await CollectedStudy(folder: parent.appendingPathComponent("ad"), database: database)
        _ = try await study.admit(participant: "p1", group: nil)
        let upload = try #require(try await study.store.results(participant: "p1", stimulus: "first", attempt: 1))
        let delivered = results

        // Batches of 5: two kept, then the database stops answering (every process stopped) while the other four
        // are measured; they wait, nothing is refused, and go once it answers again.
        let clock = ContinuousClock()
        let (pausedWrites, ended) = try await BlockingWork.run { () throws -> (Duration, Duration) in
            let writer = DatabaseResultWriter(upload: upload, input: "first", batchFrames: 5)
            for result in delivered.prefix(10) { try writer.write(result, frame: nil) }
            Thread.sleep(forTimeInterval: 0.5)
            server.pause()
            let paused = clock.now
            for result in delivered.dropFirst(10) { try writer.write(result, frame: nil) }
            let writes = clock.now - paused
            // The end waits (on this thread) for everything to be kept; the database answers 3 s after the pause.
            DispatchQueue.global().asyncAfter(deadline: .now() + 3) { server.resume() }
            try writer.finishEpisodes(finalEpisodes)
            try writer.finish(.complete)
            return (writes, clock.now - paused)
        }
        // Four batches waiting on a database that does not answer would take 4 x 10 s of deadlines if they blocked.
        // (10 s, not less: a loaded fresh-clone CI run took over 2 s for a registration's first query.)
        #expect(pausedWrites < .seconds(2), "measuring never waits for the database: \(pausedWrites)")
        #expect(ended >= .seconds(3), "the end waited for the database: \(ended)")
        let key = ResultKey(study: "ad", participant: "p1", stimulus: "first", attempt: 1)
        let (lines, end) = try await database.results(key)
        #expect(lines == jsonl, "the JSON Lines as the file holds them")
        #expect(end?.batches == 6)
        #expect(end?.summary == FileManager.default.contents(atPath: try #require(files.summary)))

        // Read back as mien study reads the files: the same series.
        let archive = try await StudyArchive.open(url: server.url(), study: "ad")
        let content = try #require(try await archive.content(ofRecording: "participants/p1/first"))
        guard case .memory(_, let events, _) = content else {
            Issue.record("not the database's content")
            return
        }
        #expect(events == (try String(contentsOfFile: try #require(files.events), encoding: .utf8)))
        await archive.close()

        // Attempt 1 again (a server whose folder never saw the first attempt set aside): the rows are set aside
        // under -1, not lost.
        _ = try await study.store.results(participant: "p1", stimulus: "first", attempt: 1)
        #expect(try await database.results(key).lines.isEmpty)
        var aside = key
        aside.attempt = -1
        #expect(try await database.results(aside).lines == jsonl)

        // Bounded: with the database away, more than the bound waiting is refused with the reason.
        var second = key
        second.attempt = 2
        let small = ResultUpload(
            key: second, upload: try await database.claimAttempt(second), database: database,
            maximumBytes: 3 * (jsonl.count / 30))
        server.pause()
        let refusal = await BlockingWork.run { () -> String in
            let writer = DatabaseResultWriter(upload: small, input: "first", batchFrames: 1)
            do {
                try writer.write(delivered[0], frame: nil)
                // Until the first batch's deadline (10 s) has passed.
                for _ in 0..<600 where !small.isAway { Thread.sleep(forTimeInterval: 0.1) }
                for result in delivered.dropFirst() { try writer.write(result, frame: nil) }
                return "nothing refused"
            } catch {
                return "\(error)"
            }
        }
        server.resume()
        #expect(
            refusal.contains("bytes of results wait for the study's database (it has not answered for"), "\(refusal)")

        // Erasure removes the rows, and a batch arriving after it is refused (not kept, not tried again).
        #expect(try await study.delete("p1"))
        let (gone, _) = try await database.results(key)
        #expect(gone.isEmpty)
        await #expect(throws: ResultsRefused.self) {
            try await database.insertBatch(key, upload: upload.upload, number: 0, frames: 1, lines: Data("{}\n".utf8))
        }
    }

    /// Issue 77: a viewing's upload still retrying after the page came back (a database outage) could put its
    /// frames into the new viewing's attempt; each attempt is now fenced by its upload's claim.
    @Test func anEarlierViewingsUpload_neverMixesIntoTheNextAttempt_andAnErasureRefusesIt() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let database = try await StudyDatabase.open(
            try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger, deadline: .seconds(10))
        defer { database.close() }
        let study = try await CollectedStudy(folder: parent.appendingPathComponent("ad"), database: database)
        _ = try await study.admit(participant: "p1", group: nil)
        let key = ResultKey(study: "ad", participant: "p1", stimulus: "first", attempt: 1)
        func line(_ viewing: String, _ time: Int) -> Data { Data("{\"viewing\":\"\(viewing)\",\"t\":\(time)}\n".utf8) }

        // The first viewing keeps two batches, then its page comes back and the same number is claimed again.
        let first = try await database.claimAttempt(key)
        try await database.insertBatch(key, upload: first, number: 0, frames: 1, lines: line("first", 0))
        try await database.insertBatch(key, upload: first, number: 1, frames: 1, lines: line("first", 1))
        let second = try await database.claimAttempt(key)
        #expect(first != second)
        try await database.insertBatch(key, upload: second, number: 0, frames: 1, lines: line("second", 0))
        // The first viewing's next batch and its end arrive late (retried after an outage): refused, not mixed.
        await #expect {
            try await database.insertBatch(key, upload: first, number: 2, frames: 1, lines: line("first", 2))
        } throws: { ($0 as? ResultsRefused)?.reason == .superseded }
        await #expect {
            try await database.insertBatch(key, upload: first, number: 1, frames: 1, lines: line("first", 1))
        } throws: { ($0 as? ResultsRefused)?.reason == .superseded }
        await #expect {
            try await database.insertEnd(
                key, upload: first, ResultEnd(batches: 3, episodes: Data("[]".utf8), summary: Data("{}".utf8)))
        } throws: { ($0 as? ResultsRefused)?.reason == .superseded }
        try await database.insertBatch(key, upload: second, number: 1, frames: 1, lines: line("second", 1))
        try await database.insertEnd(
            key, upload: second, ResultEnd(batches: 2, episodes: Data("[]".utf8), summary: Data("{}".utf8)))
        let (kept, end) = try await database.results(key)
        #expect(kept == line("second", 0) + line("second", 1), "only the second viewing under attempt 1")
        #expect(end?.batches == 2)
        var aside = key
        aside.attempt = -1
        #expect(try await database.results(aside).lines == line("first", 0) + line("first", 1), "the first kept apart")

        // An upload that learns of its refusal stops, and says so (the page is told, not left waiting).
        let late = ResultUpload(key: key, upload: first, database: database)
        try late.send(.batch(number: 5, frames: 1, lines: line("first", 5)))
        let clock = ContinuousClock()
        let sent = clock.now
        while late.refusal == nil, clock.now - sent < .seconds(10) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(late.refusal == .superseded)

        // Erased: the claims go with the session, and a write of either viewing is refused as erased.
        #expect(try await study.delete("p1"))
        await #expect {
            try await database.insertBatch(key, upload: second, number: 2, frames: 1, lines: line("second", 2))
        } throws: { ($0 as? ResultsRefused)?.reason == .erased }
        await #expect {
            _ = try await database.claimAttempt(key)
        } throws: { ($0 as? ResultsRefused)?.reason == .erased }
    }

    /// Issue 77: an outage longer than the end's deadline no longer declares a stored attempt unsaved: the end
    /// waits while the database does not answer (the page is told it is saving), and the attempt is kept whole.
    @Test func theEnd_waitsOutAnOutageLongerThanItsDeadline_andTellsThePageOnce() async throws {
        let server = try await PostgresServer.start()
        defer {
            server.resume()
            server.stop()
        }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let database = try await StudyDatabase.open(
            try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger, deadline: .seconds(2))
        defer { database.close() }
        let study = try await CollectedStudy(folder: parent.appendingPathComponent("ad"), database: database)
        _ = try await study.admit(participant: "p1", group: nil)
        let upload = try #require(try await study.store.results(participant: "p1", stimulus: "first", attempt: 1))
        let told = Locked(0)
        let clock = ContinuousClock()
        let waited = try await BlockingWork.run { () throws -> Duration in
            try upload.send(.batch(number: 0, frames: 1, lines: Data("{\"t\":0}\n".utf8)))
            server.pause()
            // The database answers again 6 s later: past the end's 1-s deadline, within its 60 s while away.
            DispatchQueue.global().asyncAfter(deadline: .now() + 6) { server.resume() }
            let start = clock.now
            try upload.finish(
                ResultEnd(batches: 1, episodes: Data("[]".utf8), summary: Data("{}".utf8)), within: .seconds(1),
                whileAway: .seconds(60), onWaiting: { told.withLock { $0 += 1 } })
            return clock.now - start
        }
        #expect(waited >= .seconds(5), "it waited for the database: \(waited)")
        #expect(told.withLock { $0 } == 1, "the page told once that its results are being saved")
        let key = ResultKey(study: "ad", participant: "p1", stimulus: "first", attempt: 1)
        let (lines, end) = try await database.results(key)
        #expect(lines == Data("{\"t\":0}\n".utf8) && end?.batches == 1)

        // Without the wait while away (as before), the same outage is a failure: the bound still holds.
        let second = try #require(try await study.store.results(participant: "p1", stimulus: "second", attempt: 1))
        let refusal = await BlockingWork.run { () -> String in
            do {
                try second.send(.batch(number: 0, frames: 1, lines: Data("{\"t\":0}\n".utf8)))
                server.pause()
                DispatchQueue.global().asyncAfter(deadline: .now() + 6) { server.resume() }
                try second.finish(
                    ResultEnd(batches: 1, episodes: Data("[]".utf8), summary: Data("{}".utf8)), within: .seconds(1),
                    whileAway: .seconds(3))
                return "kept"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal.contains("did not keep the results within 3"), "\(refusal)")
    }

    @Test func aRecording_uploadedThroughTwoServers_isOneFile() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = CollectionFolder(parent.appendingPathComponent("ad"))
        var settings = try CollectionSettings.read(folder: folder.url)
        settings.record = true
        try CollectionFolder.writeAtomically(try settings.encoded(), to: folder.settings.path)
        let databases = [
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger),
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger),
        ]
        defer { for database in databases { database.close() } }
        let a = try await CollectedStudy(folder: folder.url, database: databases[0])
        let b = try await CollectedStudy(folder: folder.url, database: databases[1])
        _ = try await a.admit(participant: "p1", group: nil)
        try await b.store.refresh()
        // An MP4 of a face, as a page's MediaRecorder may give: half through A, the rest through B (no affinity).
        let clip = try Data(
            contentsOf: SampleMedia.repositoryRoot.appendingPathComponent("Samples/astronaut-pan-zoom.mp4"))
        let half = clip.count / 2
        #expect(try await a.appendRecording("p1", offset: 0, chunk: [UInt8](clip.prefix(half))) == half)
        #expect(await b.recordingBytes("p1") == half, "B sees what A received")
        #expect(try await b.appendRecording("p1", offset: half, chunk: [UInt8](clip.dropFirst(half))) == clip.count)
        // A page resending an old chunk through A is told where the recording is, whichever server took the rest.
        await StudyCollectionTests.refusal(.conflict, code: "wrongOffset") {
            _ = try await a.appendRecording("p1", offset: half, chunk: [1, 2, 3])
        }
        // While a chunk of theirs is being written through A, another through A waits its turn (told so).
        a.local.withLock { _ = $0.appending.insert("p1") }
        await StudyCollectionTests.refusal(.conflict, code: "uploadBusy") {
            _ = try await a.appendRecording("p1", offset: clip.count, chunk: [1, 2, 3])
        }
        a.local.withLock { _ = $0.appending.remove("p1") }
        try await b.finishRecording("p1", onsets: ["first": 0.5])
        #expect(try Data(contentsOf: folder.webcam("p1")) == clip)
        try await a.store.refresh()
        #expect(a.session("p1")?.recordingComplete == true)
    }

    @Test func anErasureThroughAnotherServer_removesThisServersFiles() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        // Each server with a copy of the folder of its own, as a server given only the URL has.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("mien-studies-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: parent, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let databases = [
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger),
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger),
        ]
        defer { for database in databases { database.close() } }
        let a = try await CollectedStudy(folder: parent.appendingPathComponent("ad"), database: databases[0])
        let b = try await CollectedStudy(folder: copy.appendingPathComponent("ad"), database: databases[1])
        _ = try await a.admit(participant: "p1", group: nil)
        // p1 is watching through A when B erases them: A's socket is closed as an erasure (issue 96 item 7: it was
        // `replaced`, and the page said "You went on in another tab").
        try await StudyCollectionTests.framed(a, "p1")
        let ends = Mutex<[CollectedStudy.SocketEnd]>([])
        let socket = CollectedStudy.OpenSocket(
            kind: "first", inStimulus: true, opened: Date(), progress: nil,
            close: { end in ends.withLock { $0.append(end) } })
        _ = try await a.beginStimulus("p1", stimulus: "first", socket: socket)
        // A measured p1: their files are in A's folder only.
        try FileManager.default.createDirectory(at: a.folder.participant("p1"), withIntermediateDirectories: true)
        let participant = a.folder.participant("p1")
        let (files, _) = try await OffPool.run { try Self.measured(in: participant) }
        #expect(FileManager.default.fileExists(atPath: try #require(files.jsonl)))
        try await b.store.refresh()
        #expect(try await b.delete("p1"))
        await a.upkeep()
        #expect(!FileManager.default.fileExists(atPath: a.folder.participant("p1").path), "A removed its files too")
        #expect(a.session("p1") == nil)
        #expect(ends.withLock { $0 } == [.erased])
    }

    /// Issue 96 item 9: a killed server's temporary result files (biometric data the database holds) went on
    /// lying in the shared folder after every restart.
    @Test func aStart_removesAStoppedServersTemporaryFiles_butNotALiveSocketsOrAnUpload() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("ad")
        let databases = [
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger),
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: StudyDatabaseTests.logger),
        ]
        defer { for database in databases { database.close() } }
        let a = try await CollectedStudy(folder: folder, database: databases[0])
        for id in ["p1", "p2"] {
            _ = try await a.admit(participant: id, group: nil)
            try await StudyCollectionTests.framed(a, id)
        }
        // p2 watches through A, which is alive; p1's server was killed a minute ago.
        _ = try await a.beginStimulus("p2", stimulus: "first", socket: StudyCollectionTests.socket("first"))
        let manager = FileManager.default
        func file(_ id: String, _ name: String, age: TimeInterval) throws -> String {
            let directory = a.folder.participant(id)
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent(name).path
            #expect(manager.createFile(atPath: path, contents: Data("{}\n".utf8)))
            try manager.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
            return path
        }
        let stale = [
            try file("p1", ".first.jsonl.partial-4242-1", age: 60),
            try file("p1", ".first.csv.partial-4242-2", age: 60),
        ]
        let live = try file("p2", ".first.jsonl.partial-4343-1", age: 30)
        let fresh = try file("p1", ".second.jsonl.partial-4444-1", age: 1)
        let upload = try file("p1", "recording.webm.part", age: 3600)
        // Another server starts on the same folder.
        _ = try await CollectedStudy(folder: folder, database: databases[1])
        for path in stale { #expect(!manager.fileExists(atPath: path), "\(path)") }
        #expect(manager.fileExists(atPath: live), "a live server's socket writes it")
        #expect(manager.fileExists(atPath: fresh), "written a second ago: a socket this start may not have read yet")
        #expect(manager.fileExists(atPath: upload), "an upload resumes from it")
    }
}
