import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import Mien
import MienStudies
import MienTesting
import NIOCore
import NIOWebSocket
import Synchronization
import Testing

@testable import MienService

/// Overload slows pages down before it makes anyone wait, the queue lets the next in, a restart tells every page,
/// and another page of the same participant takes over: the budget alone, then through real sockets.
@Suite("mien serve --studies: capacity and sockets", .serialized)
struct StudySocketTests {
    final class Told: Sendable {
        let rates = Mutex<[Double]>([])
        var last: Double? { rates.withLock { $0.last } }
        func tell(_ rate: Double) { rates.withLock { $0.append(rate) } }
    }

    @Test func budget_scalesEveryoneDownToTheFloor_thenQueuesInOrder_priorityFirst() async throws {
        let budget = AnalysisBudget(framesPerSecond: 30)
        let told = (0..<8).map { _ in Told() }
        let tickets = (0..<8).map { _ in UUID() }
        func admit(_ index: Int, priority: Bool = false) -> AnalysisBudget.Admission {
            budget.admit(tickets[index], rate: 10, floor: 5, priority: priority, onRate: told[index].tell)
        }
        for index in 0..<3 { #expect(admit(index) == .admitted(rate: 10)) }
        // A fourth: everyone is asked for 7.5 (30 / 4), the newcomer told in its admission.
        #expect(admit(3) == .admitted(rate: 7.5))
        #expect(told[0].last == 7.5 && told[2].last == 7.5)
        for index in 4..<6 { if case .admitted = admit(index) {} else { Issue.record("\(index) not admitted") } }
        #expect(told[0].last == 5, "six at the floor fill 30 frames per second")
        // The seventh waits; one already watching (priority) goes before it.
        #expect(admit(6) == .queued(position: 1, waiting: 1))
        #expect(admit(7, priority: true) == .queued(position: 1, waiting: 2))
        #expect(admit(6) == .queued(position: 2, waiting: 2))
        budget.release(tickets[0])
        #expect(admit(6) == .queued(position: 2, waiting: 2), "the place is the head's")
        if case .admitted = admit(7, priority: true) {} else { Issue.record("the head of the queue not admitted") }
        // Frames dropped for want of time shrink the budget: pages are slowed before more are let in.
        budget.release(tickets[1])
        budget.release(tickets[2])
        #expect(told[3].last ?? 0 > 5)
        let before = budget.load.budget
        try await Task.sleep(for: .seconds(2.1))  // not Thread.sleep: the test run's threads are few
        budget.report(received: 100, analysed: 80)
        #expect(budget.load.budget < before)
    }

    @Test func consentLimiter_allowsABurst_thenTheRate() {
        let limiter = ConsentLimiter()
        for _ in 0..<3 { #expect(limiter.take("a", burst: 3, perMinute: 60) == nil) }
        #expect(limiter.take("a", burst: 3, perMinute: 60) == 1, "one a second: wait 1 s")
        #expect(limiter.take("b", burst: 3, perMinute: 60) == nil, "another address has its own")
    }

    /// A served study `ad` (`StudyCollectionTests.studies()`) with `framesPerSecond` of analysis, and its parts;
    /// the caller removes `parent`.
    static func served(framesPerSecond: Double, options change: (inout ServiceOptions) -> Void = { _ in }) throws -> (
        parent: URL, service: MienService, desk: StudyDesk, study: CollectedStudy
    ) {
        let parent = try StudyCollectionTests.studies()
        var options = try ServiceOptions(port: 0, studiesFolder: parent.path, analysisFramesPerSecond: framesPerSecond)
        change(&options)
        let service = try MienService(options: options, models: ModelStore())
        let desk = try #require(service.studies)
        return (parent, service, desk, try #require(desk.studies["ad"]))
    }

    /// Opens a participant socket that records every text message until `until` is signalled.
    static func open(
        _ client: some TestClientProtocol, _ path: String, log: TextLog, until: Completion
    ) -> Task<Void, any Error> {
        Task {
            try await client.ws(path) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 24) {
                            if case .text(let text) = message { log.append(text) }
                        }
                        until.signal()  // the server closed it: nothing left to wait for
                    }
                    group.addTask {
                        await until.wait()
                        try? await outbound.close(.normalClosure, reason: nil)
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    static func eventually(_ what: String, seconds: Double = 60, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("not within \(seconds) s: \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func sockets_slowDownQueueAndRestart_andAnotherPageTakesOver() async throws {
        var fieldwork = CollectionSettings.Fieldwork()
        fieldwork.minimumFrameRate = 5
        let parent = try StudyCollectionTests.studies(fieldwork: fieldwork)
        defer { try? FileManager.default.removeItem(at: parent) }
        // Room for two participants at the floor (5 + 5), one at the study's 10 frames per second.
        let service = try MienService(
            options: ServiceOptions(port: 0, studiesFolder: parent.path, analysisFramesPerSecond: 10),
            models: ModelStore())
        let desk = try #require(service.studies)
        let study = try #require(desk.studies["ad"])
        var admitted: [String] = []
        for number in 1...3 { admitted.append(try await StudyCollectionTests.consented(study, "p\(number)")) }
        let tokens = admitted
        try await service.application().test(.live) { client in
            let logs = (0..<4).map { _ in TextLog() }
            let ends = (0..<4).map { _ in Completion() }
            func path(_ index: Int) -> String { "/studies/ad/live?session=\(tokens[index])&stimulus=first" }
            func has(_ index: Int, _ text: String) -> Bool { logs[index].all.contains { $0.contains(text) } }
            let first = Self.open(client, path(0), log: logs[0], until: ends[0])
            try await Self.eventually("p1 ready at 10 frames/s") { has(0, #""frameRate":10"#) }
            let second = Self.open(client, path(1), log: logs[1], until: ends[1])
            try await Self.eventually("p2 ready, p1 slowed to 5") {
                has(1, #""type":"ready""#) && has(0, #""frameRate":5,"type":"rate""#)
            }
            let third = Self.open(client, path(2), log: logs[2], until: ends[2])
            try await Self.eventually("p3 queued") { has(2, #""position":1,"type":"queued""#) }
            #expect(!has(2, "ready"))
            ends[0].signal()  // p1 leaves: p3 is let in
            try await Self.eventually("p3 let in after p1 left") { has(2, #""type":"ready""#) }
            try await first.value
            #expect(study.session("p1")?.state == .incomplete && study.session("p1")?.reasonCode == .left)
            // p2 reloads: the new page takes over, the old one is told.
            let again = try await study.resume(token: tokens[1])
            #expect(again.state == "started")
            let reloaded = Self.open(client, path(1), log: logs[3], until: ends[3])
            try await Self.eventually("the old page of p2 told it was replaced") { has(1, #""type":"replaced""#) }
            try await Self.eventually("the new page of p2 ready") { has(3, #""type":"ready""#) }
            try await second.value
            #expect(study.session("p2")?.state == .started, "another page of theirs goes on")
            // The server stops: every page is told it restarts; their sessions can come back.
            await desk.stop(grace: .seconds(5))
            try await Self.eventually("p2 and p3 told of the restart") {
                has(3, #""type":"restarting""#) && has(2, #""type":"restarting""#)
            }
            try await third.value
            try await reloaded.value
            for id in ["p2", "p3"] {
                #expect(study.session(id)?.state == .incomplete && study.session(id)?.reasonCode == .serverStopped)
            }
            for end in ends { end.signal() }
        }
    }

    @Test func drain_letsAStimulusEnd_tellsTheFramingCheckAtOnce() async throws {
        let (parent, service, desk, study) = try Self.served(framesPerSecond: 20)
        defer { try? FileManager.default.removeItem(at: parent) }
        let watching = try await StudyCollectionTests.consented(study, "p1")
        let framing = try await study.admit(participant: "p2", group: nil).token
        try await service.application().test(.live) { client in
            let logs = (0..<2).map { _ in TextLog() }
            let ends = (0..<2).map { _ in Completion() }
            func has(_ index: Int, _ text: String) -> Bool { logs[index].all.contains { $0.contains(text) } }
            let first = Self.open(
                client, "/studies/ad/live?session=\(watching)&stimulus=first", log: logs[0], until: ends[0])
            let second = Self.open(client, "/studies/ad/live?session=\(framing)", log: logs[1], until: ends[1])
            try await Self.eventually("both pages ready") { has(0, #""type":"ready""#) && has(1, #""type":"ready""#) }
            let stopped = Completion()
            let started = ContinuousClock.now
            Task {
                await desk.stop(grace: .seconds(5), drain: .seconds(60))
                stopped.signal()
            }
            try await Self.eventually("the framing check told at once") { has(1, #""type":"restarting""#) }
            try await Task.sleep(for: .seconds(1))
            #expect(desk.stopping && !has(0, "restarting"), "the stimulus goes on while the server drains")
            #expect(!stopped.isDone, "stop waits for the stimulus")
            ends[0].signal()  // the participant's stimulus socket ends: nothing is left to wait for
            try await Self.eventually("stopped once the stimulus ended", seconds: 10) { stopped.isDone }
            #expect(ContinuousClock.now - started < .seconds(30), "well before the drain's 60 s")
            try await first.value
            try await second.value
        }
    }
    /// Issue 78: frames of a camera that shows no face (here a grey 1x1 picture, 10 a second over the whole 3-s
    /// stimulus) are measured, but earn no completion code; the same socket sending the sample's face does.
    @Test func framesWithoutAFace_earnNoCode_whileAFaceDoes() async throws {
        let (parent, service, _, study) = try Self.served(framesPerSecond: 40)
        defer { try? FileManager.default.removeItem(at: parent) }
        let blank = try await StudyCollectionTests.consented(study, "blank")
        let face = try await StudyCollectionTests.consented(study, "face")
        let sample = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let grey = try sample.warped(
            by: AffineTransform(a: 1 / 512, b: 0, tx: 0, c: 0, d: 1 / 512, ty: 0), width: 1, height: 1
        ).encoded(as: .jpeg(quality: 90))
        let portrait = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        try await service.application().test(.live) { client in
            // Plays the stimulus: 31 frames on media times 0...3 s, paced at 10 a second, then the end.
            func watch(_ token: String, _ picture: [UInt8]) async throws -> String {
                let log = try await Self.play(client, token: token, stamps: (0...30).map { Double($0) * 100 }) {
                    _ in picture
                }
                return log.last { $0.contains(#""type":"ended""#) } ?? "no ended message: \(log)"
            }
            let faceless = try await watch(blank, grey)
            #expect(faceless.contains(#""enough":false"#) && faceless.contains(#""faceCoverage":0"#), "\(faceless)")
            #expect((study.session("blank")?.stimuli["first"]?.coverage ?? 0) > 0.9, "every frame was measured")
            let watched = try await watch(face, portrait)
            // On a loaded machine frames may be dropped for want of time (the measured share then decides), but
            // never for want of a face.
            #expect(watched.contains(#""enough":true"#) || !watched.contains(#""faceCoverage":0,"#), "\(watched)")
        }
        await StudyCollectionTests.refusal(.conflict, code: "notWatched") { _ = try await study.complete("blank") }
        // Once they leave without a code, the panel's list says why: frames, not a face, were sent.
        _ = try await study.screenOut("blank", reason: .noFace)
        let approvals = study.approvals(in: .gmt)
        #expect(approvals.contains("reject: no face in 100 % of frames"), "\(approvals)")
        #expect(study.session("blank")?.stimuli["first"]?.counts(study.settings.fieldwork) == false)
        let seen = try #require(study.session("face")?.stimuli["first"])
        #expect(!seen.lacksFace(study.settings.fieldwork) && (seen.faceCoverage ?? 0) >= 0.5, "\(seen)")
    }
    /// Issue 78: a client cannot poison the adaptive budget, and the budget comes back once its cause leaves.
    @Test func budget_recoversWhenTheCauseLeaves_quicklyWhenNearlyIdle() async throws {
        let budget = AnalysisBudget(framesPerSecond: 100, window: .milliseconds(100))
        func windows(_ count: Int, received: Int, analysed: Int) async throws {
            for _ in 0..<count {
                try await Task.sleep(for: .milliseconds(110))
                budget.report(received: received, analysed: analysed)
            }
        }
        try await windows(12, received: 100, analysed: 50)
        #expect(budget.load.budget < 25, "frames dropped for want of time shrink it: \(budget.load.budget)")
        // The cause left; the few frames of one participant (too few to judge) grow it back by a quarter a window.
        var count = 0
        while budget.load.budget < 100, count < 20 {
            try await windows(1, received: 5, analysed: 5)
            count += 1
        }
        #expect(budget.load.budget == 100 && count <= 8, "back to the capacity in \(count) windows")
        try await windows(12, received: 100, analysed: 50)
        // Nothing to judge for 5 windows or more: the capacity again at once.
        try await Task.sleep(for: .milliseconds(600))
        budget.report(received: 3, analysed: 3)
        #expect(budget.load.budget == 100)
        // A long window with enough frames is judged as any other (a loaded test run's sleeps run long).
        try await Task.sleep(for: .milliseconds(600))
        budget.report(received: 100, analysed: 50)
        #expect(budget.load.budget == 85, "shrunk by 15 %: \(budget.load.budget)")
    }

    /// Issue 78: frames that cannot be decoded, sent as fast as allowed, leave the budget where it was.
    @Test func undecodableFrames_doNotShrinkTheBudget() async throws {
        let (parent, service, desk, study) = try Self.served(framesPerSecond: 40)
        defer { try? FileManager.default.removeItem(at: parent) }
        let token = try await StudyCollectionTests.consented(study, "garbage")
        let errors = Mutex(0)
        try await service.application().test(.live) { client in
            _ = try await client.ws("/studies/ad/live?session=\(token)&stimulus=first") { inbound, outbound, _ in
                let ready = Completion()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        await ready.wait()
                        // 12 a second (the page was asked for 10; 15 are allowed) for 3 s: two whole windows.
                        for index in 0..<36 {
                            var milliseconds = Double(index) * 83
                            let stamp = withUnsafeBytes(of: &milliseconds) { Array($0) }
                            try await outbound.write(.binary(ByteBuffer(bytes: stamp + Array("not a picture".utf8))))
                            try await Task.sleep(for: .milliseconds(83))
                        }
                        try await Task.sleep(for: .milliseconds(500))
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    for try await message in inbound.messages(maxSize: 1 << 24) {
                        guard case .text(let text) = message else { continue }
                        if text.contains(#""type":"ready""#) { ready.signal() }
                        if text.contains(#""type":"error""#) { errors.withLock { $0 += 1 } }
                    }
                    try await group.waitForAll()
                }
            }
        }
        #expect(errors.withLock { $0 } >= 20, "each undecodable frame is told")
        #expect(desk.budget.load.budget == 40, "the budget did not shrink: \(desk.budget.load.budget)")
    }
    /// Plays stimulus `first` on a socket: a frame at each of `stamps` (milliseconds of stimulus time), then the end.
    ///
    /// - Returns: every text message the server sent.
    static func play(
        _ client: some TestClientProtocol, token: String, stamps: [Double], gap: Duration = .milliseconds(100),
        picture: @escaping @Sendable (Int) -> [UInt8]
    ) async throws -> [String] {
        let log = TextLog()
        _ = try await client.ws("/studies/ad/live?session=\(token)&stimulus=first") { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
            while case .text(let text) = try await messages.next() {
                log.append(text)
                if text.contains(#""type":"ready""#) { break }
            }
            for (index, milliseconds) in stamps.enumerated() {
                var bits = milliseconds
                let stamp = withUnsafeBytes(of: &bits) { Array($0) }
                try await outbound.write(.binary(ByteBuffer(bytes: stamp + picture(index))))
                try await Task.sleep(for: gap)
            }
            try await outbound.write(.text(#"{"type":"end"}"#))
            while let message = try await messages.next() {
                if case .text(let text) = message { log.append(text) }
            }
        }
        return log.all
    }

    /// Issue 78: a stimulus cannot be watched faster than it plays, and a frame stamped past its end is refused.
    @Test func aStimulusEndedSoonerThanItPlays_andStampsPastItsEnd_doNotCount() async throws {
        let (parent, service, _, study) = try Self.served(framesPerSecond: 40)
        defer { try? FileManager.default.removeItem(at: parent) }
        let token = try await StudyCollectionTests.consented(study, "hasty")
        let portrait = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        try await service.application().test(.live) { client in
            // The 3-s stimulus's frames every 200 ms of its time, sent 70 ms apart (under the 15 a second allowed),
            // then one stamped 1,000 s in: the end comes about 1.2 s after the first frame.
            let stamps = (0...15).map { Double($0) * 200 } + [1e6]
            let log = try await Self.play(client, token: token, stamps: stamps, gap: .milliseconds(70)) { _ in portrait
            }
            #expect(log.contains { $0.contains("past the stimulus's end") }, "\(log)")
            #expect(log.contains { $0.contains("endedTooSoon") }, "\(log)")
            let ended = log.last { $0.contains(#""type":"ended""#) } ?? ""
            #expect(ended.contains(#""enough":false"#), "\(ended)")
        }
        let progress = try #require(study.session("hasty")?.stimuli["first"])
        #expect(!progress.ended && progress.frames == 16, "the frame past the end not counted: \(progress)")
        #expect(progress.coverage > 0.5, "its frames were measured, only the end is not believed")
    }
    /// Issue 78: one token's many sockets hold one place in the queue (the newest), so a real participant who
    /// comes after them is second, not 51st; the queue's size is what waits.
    @Test func oneTokensManySockets_holdOnePlaceInTheQueue() async throws {
        let parent = try StudyCollectionTests.studies()
        defer { try? FileManager.default.removeItem(at: parent) }
        // Room for one participant at the study's floor (5 frames a second).
        let service = try MienService(
            options: ServiceOptions(port: 0, studiesFolder: parent.path, analysisFramesPerSecond: 5),
            models: ModelStore())
        let desk = try #require(service.studies)
        let study = try #require(desk.studies["ad"])
        var tokens: [String] = []
        for id in ["watching", "many", "real"] {
            tokens.append(try await StudyCollectionTests.consented(study, id))
        }
        let ids = tokens
        try await service.application().test(.live) { client in
            let logs = (0..<7).map { _ in TextLog() }
            let ends = (0..<7).map { _ in Completion() }
            func has(_ index: Int, _ text: String) -> Bool { logs[index].all.contains { $0.contains(text) } }
            func path(_ token: String) -> String { "/studies/ad/live?session=\(token)&stimulus=first" }
            var sockets = [Self.open(client, path(ids[0]), log: logs[0], until: ends[0])]
            try await Self.eventually("the first participant watches") { has(0, #""type":"ready""#) }
            // Five sockets on one token, one after the other: each newer one takes the place of the one before.
            for index in 1...5 {
                sockets.append(Self.open(client, path(ids[1]), log: logs[index], until: ends[index]))
                try await Self.eventually("socket \(index) queued") { has(index, #""type":"queued""#) }
            }
            try await Self.eventually("the four earlier sockets told they were replaced") {
                (1...4).allSatisfy { has($0, #""type":"replaced""#) }
            }
            sockets.append(Self.open(client, path(ids[2]), log: logs[6], until: ends[6]))
            try await Self.eventually("the real participant second in the queue") {
                has(6, #""position":2,"type":"queued","waiting":2"#)
            }
            #expect(desk.budget.load.waiting == 2, "what waits: \(desk.budget.load.waiting)")
            #expect(!has(5, "replaced"), "the newest socket of the token keeps its place")
            for end in ends { end.signal() }
            for socket in sockets { try await socket.value }
        }
    }
    /// Issue 78/94: a stimulus socket keeps its slot only while frames keep coming at a quarter of the rate asked
    /// (over the window, here 3 s instead of 10); a trickling one is told and closed, and its next socket loses the
    /// watchers' priority; a slow but steady one is not.
    @Test func aTricklingSocket_losesItsPlace_aSteadyOneKeepsIt() async throws {
        let (parent, service, _, study) = try Self.served(framesPerSecond: 40) { $0.frameCadenceWindow = .seconds(3) }
        defer { try? FileManager.default.removeItem(at: parent) }
        let trickler = try await StudyCollectionTests.consented(study, "trickle")
        let steady = try await StudyCollectionTests.consented(study, "steady")
        let portrait = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        try await service.application().test(.live) { client in
            // One frame, then 5 s of nothing: closed about 3 s after that frame, told why.
            async let trickled = Self.play(client, token: trickler, stamps: [0], gap: .seconds(5)) { _ in portrait }
            // A frame every 0.3 s for 3 s of stimulus time: a third of the 10 asked, steady; then the end.
            async let steadied = Self.play(
                client, token: steady, stamps: Array(stride(from: 0, through: 3000, by: 300)), gap: .milliseconds(300)
            ) { _ in portrait }
            let (cut, kept) = try await (trickled, steadied)
            #expect(cut.contains { $0.contains("came too seldom") }, "\(cut)")
            #expect(
                !kept.contains { $0.contains("came too seldom") } && kept.contains { $0.contains(#""type":"ended""#) })
        }
        let trickled = try #require(study.session("trickle"))
        #expect(trickled.reasonCode == .tooFewFrames && trickled.slotLost != nil, "\(trickled)")
        #expect(!CollectedStudy.goesFirst(trickled, now: Date()), "its next socket waits behind newcomers")
        #expect(study.session("steady")?.state == .started)
        #expect(try CollectedStudy.goesFirst(#require(study.session("steady")), now: Date()))
    }
}
