import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Mien
import MienStudies
import MienTesting
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization
import Testing

@testable import MienService

/// Studies in PostgreSQL: URLs, the errors at start, migrations, and two servers deciding on one study at once.
@Suite("studies in PostgreSQL", .serialized)
struct StudyDatabaseTests {
    static let logger = Logger(label: "mien.test.database")
    /// The socket of the take-over test, which its own close closure names.
    static let socketID = Mutex(UUID())

    @Test func urls_parseTheirParts_andNeverShowThePassword() throws {
        let url = try DatabaseURL("postgres://mien:s%40cret@db.example.org:6543/panel?sslmode=require")
        #expect(url.user == "mien" && url.password == "s@cret" && url.host == "db.example.org")
        #expect(url.port == 6543 && url.database == "panel" && url.tls == .require)
        #expect(url.description == "postgres://mien:***@db.example.org:6543/panel?sslmode=require")
        let socket = try DatabaseURL("postgresql://mien@/panel?host=/run/postgresql", environment: ["PGPASSWORD": "x"])
        #expect(socket.socketFolder == "/run/postgresql" && socket.password == "x" && socket.port == 5432)
        for bad in [
            "postgres://mien:hunter2@db/", "postgres://:hunter2@db/panel", "mysql://mien:hunter2@db/panel",
            "postgres://mien:hunter2@db/panel?sslmode=maybe", "postgres://mien:hunter2@db:99999/panel",
            "postgres://mien:hunter2@db/panel?user=x",
        ] {
            #expect {
                try DatabaseURL(bad)
            } throws: { error in
                let error = error as? MienError
                return error?.code == .invalidArgument && error?.description.contains("hunter2") == false
            }
        }
    }

    /// libpq's password file (`PGPASSFILE`) for a URL without its password: the first line that matches, `*`
    /// matching anything, escaped colons read as colons (issue 96 item 14).
    @Test func aURLWithoutItsPassword_readsPGPASSFILE() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            """
            # host:port:database:user:password
            other:5432:mien:mien:wrong
            db:*:mien:mien:pa\\:ss
            *:*:*:*:fallback

            """.utf8
        ).write(to: file)
        let environment = ["PGPASSFILE": file.path]
        #expect(try DatabaseURL("postgres://mien@db/mien", environment: environment).password == "pa:ss")
        #expect(try DatabaseURL("postgres://mien@db:6432/other", environment: environment).password == "fallback")
        #expect(
            try DatabaseURL(
                "postgres://mien@db/mien", environment: environment.merging(["PGPASSWORD": "env"]) { a, _ in a }
            )
            .password == "env", "PGPASSWORD first, as libpq")
        #expect(try DatabaseURL("postgres://mien@db/mien", environment: ["PGPASSFILE": "/nonexistent"]).password == nil)
        #expect(!"\(try DatabaseURL("postgres://mien@db/mien", environment: environment))".contains("pa:ss"))
    }

    /// Issue 77: a malformed URL (or one taken for a folder) never shows its password, and `sslmode` means what
    /// libpq says.
    @Test func malformedURLs_neverShowThePassword_andSSLModesAreLibpqs() throws {
        for bad in [
            "postgres:/mien:hunter2@db/panel", "mien:hunter2@db/panel", "postgress://mien:hunter2@db/panel",
            "postgres://mien:hunter2@db/panel?sslmode=verify", "postgres://mien:hunter2@db/panel?sslrootcert=ca.pem",
        ] {
            #expect(!DatabaseURL.redacted(bad).contains("hunter2"), "\(bad)")
            #expect {
                try DatabaseURL(bad)
            } throws: { error in
                (error as? MienError)?.code == .invalidArgument && !"\(error)".contains("hunter2")
            }
        }
        #expect(DatabaseURL.redacted("/srv/studies") == "/srv/studies")
        // A mistyped scheme is taken for a folder: the folder's error does not show the password either.
        #expect {
            try StudyDesk(
                parent: URL(fileURLWithPath: "postgress://mien:hunter2@db/panel"),
                budget: AnalysisBudget(framesPerSecond: 10))
        } throws: { !"\($0)".contains("hunter2") }
        let expected: [(String, CertificateVerification)] = [
            ("prefer", .none), ("require", .none), ("require&sslrootcert=/ca.pem", .noHostnameVerification),
            ("verify-ca", .noHostnameVerification), ("verify-full", .fullVerification),
        ]
        for (query, verification) in expected {
            let url = try DatabaseURL("postgres://mien@db/panel?sslmode=\(query)", environment: [:])
            #expect(StudyDatabase.tlsConfiguration(url).certificateVerification == verification, "\(query)")
        }
        let full = try DatabaseURL("postgres://mien@db/panel?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(full.description == "postgres://mien@db:5432/panel?sslmode=verify-full&sslrootcert=/etc/ca.pem")
    }

    /// Against a server with TLS and a private certificate authority: `prefer` and `require` connect without
    /// checking the certificate, `verify-ca` and `verify-full` with `sslrootcert`; without it the refusal names the
    /// host and the mode, never a file of the machine the TLS library was built on.
    @Test func tls_connectsAsEachSSLModeSays_andARefusalNamesNoBuildPath() async throws {
        let server = try await PostgresServer.start(tls: true)
        defer { server.stop() }
        let ca = server.certificateAuthority.path
        func url(_ host: String, _ query: String) -> String {
            "postgres://mien:\(server.password)@\(host):\(server.port)/postgres?\(query)"
        }
        for (host, query) in [
            ("127.0.0.1", "sslmode=prefer"), ("127.0.0.1", "sslmode=require"),
            ("127.0.0.1", "sslmode=verify-ca&sslrootcert=\(ca)"),
            ("localhost", "sslmode=verify-full&sslrootcert=\(ca)"),
        ] {
            let database = try await StudyDatabase.open(try DatabaseURL(url(host, query)), logger: Self.logger)
            try await database.ping()
            database.close()
        }
        for query in ["sslmode=verify-ca", "sslmode=verify-full"] {
            await #expect {
                try await StudyDatabase.open(try DatabaseURL(url("localhost", query)), logger: Self.logger).close()
            } throws: { error in
                let text = "\(error)"
                return text.contains("localhost's TLS certificate was not accepted") && text.contains("sslrootcert")
                    && !text.contains(server.password) && !text.contains(".build/") && !text.contains("/Sources/")
            }
        }
        // Issue 96 item 13: the certificate problem named, not "no server answers" or a file system error's code (the
        // test server's certificate names localhost only).
        let cases = [
            (url("127.0.0.1", "sslmode=verify-full&sslrootcert=\(ca)"), "TLS certificate does not name 127.0.0.1"),
            (
                url("localhost", "sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem"),
                "sslrootcert=/nonexistent/ca.pem cannot be read"
            ),
        ]
        for (text, expected) in cases {
            await #expect {
                try await StudyDatabase.open(try DatabaseURL(text), logger: Self.logger).close()
            } throws: { error in
                "\(error)".contains(expected) && !"\(error)".contains(server.password)
            }
        }
    }

    @Test func opening_namesEachCause_andMigratesOnce() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        func refusal(_ url: String, _ words: String) async {
            await #expect {
                try await StudyDatabase.open(try DatabaseURL(url), logger: Self.logger).close()
            } throws: { error in
                let text = "\(error)"
                return text.contains(words) && !text.contains("wrong-password")
                    && !text.contains(server.password)
            }
        }
        await refusal(server.url(password: "wrong-password"), "refused user mien's password")
        await refusal(server.url(database: "nosuch"), "has no database nosuch")
        await refusal("postgres://mien:x@127.0.0.1:1/postgres?sslmode=disable", "no PostgreSQL server answers there")
        // Twice at once: one migration.
        async let first = StudyDatabase.open(try DatabaseURL(server.url()), logger: Self.logger)
        async let second = StudyDatabase.open(try DatabaseURL(server.url()), logger: Self.logger)
        let (one, two) = try await (first, second)
        defer { two.close() }
        let versions = try await one.transaction { connection in
            var versions: [Int] = []
            for try await version in try await connection.query(
                "SELECT version FROM mien_schema ORDER BY version", logger: Self.logger
            ).decode(Int.self) {
                versions.append(version)
            }
            // A newer Mien's schema, for the next open.
            try await connection.query("INSERT INTO mien_schema (version) VALUES (99)", logger: Self.logger)
            return versions
        }
        one.close()
        #expect(versions == Array(1...StudyDatabase.schemaVersion))
        await refusal(server.url(), "schema is version 99, written by a newer Mien")
    }

    @Test func twoServers_decideOnOneStudy_underABurst() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies(maximum: 30)
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("ad")
        let databases = [
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: Self.logger),
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: Self.logger),
        ]
        defer { for database in databases { database.close() } }
        var servers: [CollectedStudy] = []
        for database in databases { servers.append(try await CollectedStudy(folder: folder, database: database)) }
        let (a, b) = (servers[0], servers[1])
        // 40 consents at once, spread over the two servers; p1 consents on both at the same moment: one is admitted,
        // the other refused (an ID is not a credential, issue 94).
        let admissions = try await withThrowingTaskGroup(of: CollectedStudy.Admission?.self) { group in
            for index in 2...40 {
                group.addTask {
                    try await (index.isMultiple(of: 2) ? a : b).admit(participant: "p\(index)", group: nil)
                }
            }
            // Either of p1's two consents may come first; the other is refused.
            for server in [a, b] {
                group.addTask {
                    do {
                        return try await server.admit(participant: "p1", group: nil)
                    } catch let refusal as StudyRefusal where refusal.code == "cannotTakePart" {
                        return nil
                    }
                }
            }
            var all: [CollectedStudy.Admission] = []
            for try await admission in group { if let admission { all.append(admission) } }
            return all
        }
        #expect(admissions.count == 40)
        try await a.store.refresh()
        let sessions = a.sessions
        #expect(sessions.count == 40, "one session per ID")
        #expect(Set(sessions.map(\.number)) == Set(1...40), "numbers unique, none skipped")
        let groups = Dictionary(grouping: sessions, by: { $0.group ?? "" }).mapValues(\.count)
        #expect(groups == ["A": 20, "B": 20], "split exactly: every consent decided on the other's")
        // A token issued by one server is known to the other (the last one issued for p1 is the valid one).
        let p2 = try #require(admissions.first { $0.participant == "p2" })
        #expect(try await b.participant(token: p2.token) == "p2")
        // All 40 try to start watching at once: the cap (30) holds across servers.
        for index in 2...40 { try await StudyCollectionTests.framed(index.isMultiple(of: 3) ? a : b, "p\(index)") }
        let started = await withTaskGroup(of: Bool.self) { group in
            for index in 2...40 {
                group.addTask {
                    let socket = StudyCollectionTests.socket("first")
                    do {
                        _ = try await (index.isMultiple(of: 3) ? a : b).beginStimulus(
                            "p\(index)", stimulus: "first", socket: socket)
                        return true
                    } catch {
                        return false
                    }
                }
            }
            var count = 0
            for await began in group where began { count += 1 }
            return count
        }
        #expect(started == 30)
        try await b.store.refresh()
        #expect(b.sessions.filter { $0.reasonCode == .studyFull }.count == 9)
        // Erasure on one server is gone on the other.
        #expect(try await a.delete("p40"))
        try await b.store.refresh()
        #expect(b.session("p40") == nil && b.sessions.count == 39)
    }

    @Test func aServerWithOtherSettings_isRefused_andAGoneDatabaseFailsAChangeInTime() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let other = try StudyCollectionTests.studies(groups: ["A", "B", "C"])
        defer { try? FileManager.default.removeItem(at: other) }
        let database = try await StudyDatabase.open(
            try DatabaseURL(server.url()), logger: Self.logger, deadline: .seconds(3))
        defer { database.close() }
        let study = try await CollectedStudy(folder: parent.appendingPathComponent("ad"), database: database)
        await #expect {
            try await CollectedStudy(folder: other.appendingPathComponent("ad"), database: database)
        } throws: { error in
            (error as? MienError)?.message.contains("a study of this name with other settings") == true
        }
        _ = try await study.admit(participant: "p1", group: nil)
        // The database goes away: a change fails (503, nothing kept), within the deadline, never hangs.
        server.kill9()
        let clock = ContinuousClock()
        let began = clock.now
        await StudyCollectionTests.refusal(.serviceUnavailable, code: "notSaved") {
            _ = try await study.admit(participant: "p2", group: nil)
        }
        #expect(clock.now - began < .seconds(8))
        #expect(study.session("p2") == nil && study.session("p1") != nil)
        // An erasure the store cannot write is not done, and said so: 503, the session still there to erase again
        // (it was dropped from this server's view only, and a second DELETE answered 404; fleet-faults found it).
        await StudyCollectionTests.refusal(.serviceUnavailable, code: "notSaved") { _ = try await study.delete("p1") }
        #expect(study.session("p1") != nil)
    }

    @Test func twoServices_withOneStore_shareParticipants_overHTTP() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        // Each server has its own copy of the study folder, as replicas do.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("mien-studies-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: parent, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        #expect(throws: MienError.self) {
            try ServiceOptions(port: 0, studiesFolder: parent.path, studiesStore: "postgres://nobody@/")
        }
        try await MienService.registerStudy(folder: parent.appendingPathComponent("ad"), store: server.url())
        let services = [
            try await MienService.open(
                options: ServiceOptions(port: 0, studiesFolder: parent.path, studiesStore: server.url()),
                models: ModelStore()),
            try await MienService.open(
                options: ServiceOptions(port: 0, studiesFolder: copy.path, studiesStore: server.url()),
                models: ModelStore()),
        ]
        defer { for service in services { service.studies?.database?.close() } }
        let token = Mutex("")
        try await services[0].application().test(.router) { client in
            try await client.execute(
                uri: "/studies/ad/sessions", method: .post,
                body: ByteBuffer(string: #"{"agreed":true,"participant":"p1"}"#)
            ) { response in
                #expect(response.status == .created)
                token.withLock { $0 = StudyRouteTests.json(response.body)["token"] as? String ?? "" }
            }
        }
        let issued = token.withLock { $0 }
        try await services[1].application().test(.router) { client in
            // The other server knows the token, and the ID: a second consent with it is the same participant.
            try await client.execute(
                uri: "/studies/ad/resume", method: .post, headers: [.authorization: "Bearer \(issued)"]
            ) { response in
                #expect(response.status == .ok)
                #expect(StudyRouteTests.json(response.body)["participant"] as? String == "p1")
            }
        }
        let other = try #require(services[1].studies?.studies["ad"])
        #expect(other.sessions.map(\.participant) == ["p1"] && other.sessions.first?.number == 1)
        // The database goes away: still ready (every server shares it: the balancer keeps them all, and pages get
        // the server's own "try again"), saying no new participant can be taken; still alive.
        server.kill9()
        try await services[1].application().test(.router) { client in
            // A probe reads the answer of a ping in the background (it never waits): probes repeat, as a
            // balancer's do, until one has it.
            let said = Mutex<(newParticipants: String?, reason: String?)>((nil, nil))
            for _ in 0..<15 {
                try await client.execute(uri: "/readyz", method: .get) { response in
                    #expect(response.status == .ok)
                    let body = StudyRouteTests.json(response.body)
                    #expect(body["status"] as? String == "ready")
                    said.withLock { $0 = (body["newParticipants"] as? String, body["reason"] as? String) }
                }
                if said.withLock({ $0.newParticipants }) == "no" { break }
                try await Task.sleep(for: .milliseconds(300))
            }
            let body = said.withLock { $0 }
            #expect(body.newParticipants == "no")
            #expect(body.reason == "the studies' database does not answer")
            try await client.execute(uri: "/healthz", method: .get) { response in #expect(response.status == .ok) }
            // A page's request is a 503 with Retry-After, which the page waits out and sends again.
            try await client.execute(
                uri: "/studies/ad/resume", method: .post, headers: [.authorization: "Bearer \(issued)"]
            ) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "5")
            }
        }
        // The pool itself refusing (as its circuit breaker does after a minute without the database, at once and
        // for some seconds after it is back; here the pool shut): a 503 too, never the 500 it was (issue 96 item 6).
        services[1].studies?.database?.close()
        try await Task.sleep(for: .milliseconds(200))
        try await services[1].application().test(.router) { client in
            try await client.execute(
                uri: "/studies/ad/resume", method: .post, headers: [.authorization: "Bearer \(issued)"]
            ) { response in
                #expect(response.status == .serviceUnavailable, "\(String(buffer: response.body))")
                #expect(response.headers[.retryAfter] == "5")
                #expect(StudyRouteTests.json(response.body)["error"].map { "\($0)" }?.contains("notSaved") == true)
            }
        }
    }

    @Test func readiness_answersWithinASecond_whileTheDatabaseIsFrozen() async throws {
        let server = try await PostgresServer.start()
        defer {
            server.resume()
            server.stop()
        }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        try await MienService.registerStudy(folder: parent.appendingPathComponent("ad"), store: server.url())
        let service = try await MienService.open(
            options: ServiceOptions(port: 0, studiesFolder: parent.path, studiesStore: server.url()),
            models: ModelStore())
        defer { service.studies?.database?.close() }
        // Frozen (SIGSTOP), as a partition looks: a ping waited 2 s, past a balancer's 1-s check, and took every
        // server out of it (make fleet-faults, seed 8).
        server.pause()
        try await service.application().test(.router) { client in
            for round in 0..<4 {
                let clock = ContinuousClock()
                let asked = clock.now
                try await client.execute(uri: "/readyz", method: .get) { response in
                    #expect(response.status == .ok)
                    let body = StudyRouteTests.json(response.body)
                    // The first probe has no answer yet (the ping it started is still waiting).
                    #expect(body["status"] as? String == "ready")
                    if round > 0 { #expect(body["newParticipants"] as? String == "no") }
                }
                #expect(clock.now - asked < .milliseconds(900))
                try await Task.sleep(for: .milliseconds(700))
            }
        }
    }

    @Test func aPageBackThroughAnotherServer_takesItsSocketOver_andAStoppedServersParticipantsAreReleased()
        async throws
    {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("ad")
        // A lease of 3 s (20 s in service), so the test waits little.
        let databases = [
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: Self.logger, lease: .seconds(3)),
            try await StudyDatabase.open(try DatabaseURL(server.url()), logger: Self.logger, lease: .seconds(3)),
        ]
        defer { for database in databases { database.close() } }
        let a = try await CollectedStudy(folder: folder, database: databases[0])
        let b = try await CollectedStudy(folder: folder, database: databases[1])
        // Both servers beat on a task of their own every 300 ms, as live servers do, until A is killed: in CI's
        // parallel run the steps before the kill once took longer than a 2-s lease from A's one beat, and B took A
        // for gone before it was.
        let beating = try await StudyLeaseTests.beating(databases)
        defer { beating.cancel() }
        for id in ["p1", "p2", "p3"] { _ = try await a.admit(participant: id, group: nil) }
        let p4 = try await a.admit(participant: "p4", group: nil).token
        // p1 watches through A; the socket records what it measured when it is closed, as a real one does.
        let recorded = Completion()
        let socket = CollectedStudy.OpenSocket(
            kind: "first", inStimulus: true, opened: Date().addingTimeInterval(-10), progress: nil,
            close: { end in
                Task {
                    let stimulus = a.settings.stimuli[0]
                    await a.endStimulus(
                        "p1", stimulus: stimulus, progress: StudyCollectionTests.measured(to: 1, ended: false),
                        end: end, socket: Self.socketID.withLock { $0 })
                    recorded.signal()
                }
            })
        Self.socketID.withLock { $0 = socket.id }
        for id in ["p1", "p2", "p3", "p4"] { try await StudyCollectionTests.framed(a, id) }
        _ = try await a.beginStimulus("p1", stimulus: "first", socket: socket)
        await StudyCollectionTests.refusal(.conflict, code: "alreadyStreaming") {
            _ = try await b.beginStimulus("p1", stimulus: "first", socket: StudyCollectionTests.socket("first"))
        }
        // The page reloads and comes back through B: B asks, A's upkeep closes its socket, B goes on.
        async let takenOver: Void = b.takeOver("p1")
        try await Task.sleep(for: .milliseconds(500))
        await a.upkeep()
        await takenOver
        #expect(await recorded.wait(timeout: .seconds(5)))
        _ = try await b.beginStimulus("p1", stimulus: "first", socket: StudyCollectionTests.socket("first"))
        #expect(b.session("p1")?.state == .started)
        // p2 and p3 watch through A, and A stops beating (killed): B's upkeep releases p2, marked incomplete; p3's
        // page came back through B meanwhile, so p3 goes on there.
        let (_, cut) = try await a.beginStimulus("p2", stimulus: "first", socket: StudyCollectionTests.socket("first"))
        // What A's socket kept of p2 in the database before A stopped: 30 real frames of a face.
        let (files, _) = try await OffPool.run { try StudyResultsDatabaseTests.measured(in: parent) }
        let lines = try Data(contentsOf: URL(fileURLWithPath: try #require(files.jsonl)))
        let key = ResultKey(study: "ad", participant: "p2", stimulus: "first", attempt: cut, number: nil)
        let upload = try await databases[0].claimAttempt(key)
        try await databases[0].insertBatch(key, upload: upload, number: 0, frames: 30, lines: lines)
        // And of p3, whose page comes back through B after A is killed (issue 96 item 8).
        let (_, cutP3) = try await a.beginStimulus(
            "p3", stimulus: "first", socket: StudyCollectionTests.socket("first"))
        let keyP3 = ResultKey(study: "ad", participant: "p3", stimulus: "first", attempt: cutP3, number: nil)
        let uploadP3 = try await databases[0].claimAttempt(keyP3)
        try await databases[0].insertBatch(keyP3, upload: uploadP3, number: 0, frames: 30, lines: lines)
        _ = try await a.beginStimulus("p4", stimulus: "first", socket: StudyCollectionTests.socket("first"))
        // A is killed here: it beats no more.
        beating.cancel()
        _ = await beating.result
        async let cameBack: Void = b.takeOver("p3")
        // p4's page reloaded through B, its socket not yet there (a busy server): not marked either.
        #expect(try await b.resume(token: p4).state == "started")
        await b.upkeep()
        try await b.store.refresh()
        #expect(b.session("p2")?.state == .started, "A's heartbeat is still within the lease")
        let clock = ContinuousClock()
        let stopped = clock.now
        while clock.now - stopped < .seconds(14), b.session("p2")?.state == .started {
            try await databases[1].heartbeat()
            await b.upkeep()
            try await Task.sleep(for: .milliseconds(500))
        }
        let session = try #require(b.session("p2"))
        #expect(session.state == .incomplete && session.reasonCode == .serverStopped)
        #expect(clock.now - stopped < .seconds(7), "released within the lease and one upkeep")
        // Issue 77: the cut attempt shows what the database kept of it, not 0 %.
        try await StudySocketTests.eventually("the cut attempt's frames recorded") {
            b.session("p2")?.stimuli["first"]?.frames == 30
        }
        let measured = try #require(b.session("p2")?.stimuli["first"])
        #expect(measured.coverage > 0 && measured.analysed > 0 && !measured.ended, "\(measured)")
        #expect(b.session("p2")?.reason?.hasSuffix("% measured)") == true, "\(b.session("p2")?.reason ?? "")")
        #expect(b.store.current().holder(of: "p2") == nil)
        await cameBack
        #expect(b.session("p3")?.state == .started, "a page back through a live server is not marked incomplete")
        #expect(b.session("p4")?.state == .started, "nor one that resumed through it")
        let (_, again) = try await b.beginStimulus(
            "p3", stimulus: "first", socket: StudyCollectionTests.socket("first"))
        // The attempt A never recorded is on the record, with what the database kept of it, and counts.
        #expect(again == cutP3 + 1)
        let p3 = try #require(b.session("p3"))
        #expect(p3.attempts.map(\.number) == [cutP3], "\(p3.attempts)")
        #expect(p3.attempts.first?.progress.frames == 30 && p3.attempts.first?.progress.ended == false)
        #expect(p3.attempts.first?.reason.hasPrefix("interrupted at") == true, "\(p3.attempts)")
        // The dashboard's count and the attempts left read that list.
        #expect(p3.attempts.count == 1)
    }
}
