import Foundation
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import MienCore
import MienTesting
import NIOCore
import NIOWebSocket
import Testing

@testable import Mien
@testable import MienService
@testable import MienStudies

/// Issue 79: the page's viewing events on the stimulus's socket, kept with the attempt; a hidden page's frames not
/// counted; impossible events refused, saying why, without breaking the session.
@Suite("Study viewing events")
struct StudyViewingTests {
    enum Step {
        case frame(Double)
        case say(String)
    }

    /// Wall time between the steps of a 200-ms stimulus-time grid: longer than the grid, so a detector slowed by the
    /// tests beside it (each frame's analysis past 200 ms on two busy cores) still analyses every frame, as the
    /// assertions on counts and shares need; a page that is late measures the same stimulus times.
    static let gap = Duration.milliseconds(320)

    /// Plays stimulus `first` on a socket: each step in turn (a frame at a stimulus time in milliseconds, or a
    /// text message), `gap` apart, then the end.
    /// - Returns: every text message the server sent.
    /// - Parameter analysed: when given, the frames after the first wait until it holds (the first frame's
    ///   analysis seen): a run's first frame loads its models, and the frames a cold start holds up replace one
    ///   another in a live run's inbox (dropped, as a camera's would be), which a test of what is measured must not
    ///   depend on.
    static func play(
        _ client: some TestClientProtocol, token: String, steps: [Step], gap: Duration,
        analysed: (@Sendable () -> Bool)? = nil
    ) async throws -> [String] {
        let log = TextLog()
        let portrait = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        _ = try await client.ws("/studies/ad/live?session=\(token)&stimulus=first") { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
            while case .text(let text) = try await messages.next() {
                log.append(text)
                if text.contains(#""type":"ready""#) { break }
            }
            var first = true
            for step in steps {
                switch step {
                case .frame(let milliseconds):
                    var bits = milliseconds
                    let stamp = withUnsafeBytes(of: &bits) { Array($0) }
                    try await outbound.write(.binary(ByteBuffer(bytes: stamp + portrait)))
                    try await Task.sleep(for: gap)
                    if first, let analysed {
                        try await StudySocketTests.eventually("the first frame is analysed", seconds: 20, analysed)
                    }
                    first = false
                case .say(let text): try await outbound.write(.text(text))
                }
            }
            try await outbound.write(.text(#"{"type":"end"}"#))
            while let message = try await messages.next() {
                if case .text(let text) = message { log.append(text) }
            }
        }
        return log.all
    }

    static func event(_ kind: String, _ at: Double, _ more: String = "") -> Step {
        .say(#"{"type":"viewing","event":{"kind":"\#(kind)","at":\#(at)\#(more)}}"#)
    }

    @Test func aHiddenStretch_isKeptAtItsTimes_itsFramesNotCounted_andBadEventsRefused() async throws {
        let (parent, service, _, study) = try StudySocketTests.served(framesPerSecond: 40) { $0.idleSeconds = 600 }
        defer { try? FileManager.default.removeItem(at: parent) }
        let token = try await StudyCollectionTests.consented(study, "viewer")
        // The 3-s stimulus's frames every 200 ms of its time, 200 ms apart; the page hidden from 1.0 s to 1.7 s.
        var steps: [Step] = [
            .say(
                #"{"type":"viewing","camera":{"width":640,"height":480,"frameRate":30},"screen":{"width":1280,"height":720}}"#
            )
        ]
        for index in 0..<15 {
            let time = Double(index) * 0.2
            if index == 5 { steps.append(Self.event("hidden", 1.0)) }
            if index == 9 { steps.append(Self.event("visible", 1.7)) }
            if index == 11 {
                steps += [
                    Self.event("stall", 2.1, #","length":0.4"#), Self.event("hidden", -2), Self.event("hidden", 0.5),
                    Self.event("sleeping", 2.2), .say(#"{"type":"viewing","camera":{"width":0,"height":480}}"#),
                ]
            }
            steps.append(.frame(time * 1000))
        }
        steps.append(
            .say(
                #"{"type":"viewing","playback":{"presentedFrames":88,"droppedFrames":2,"totalFrames":90},"timing":{"method":"frameCallback","frames":15,"median":6,"p95":14,"max":21}}"#
            ))
        let played = steps
        try await service.application().test(.live) { client in
            let log = try await Self.play(client, token: token, steps: played, gap: Self.gap)
            let errors = log.filter { $0.contains(#""type":"error""#) }
            #expect(errors.filter { $0.contains("while the page said it was hidden") }.count == 4, "\(errors)")
            #expect(errors.contains { $0.contains("0 s or later") }, "\(errors)")
            #expect(errors.contains { $0.contains("playback order") }, "\(errors)")
            #expect(errors.contains { $0.contains("kinds: hidden, visible") }, "\(errors)")
            #expect(log.contains { $0.contains(#""type":"ended""#) }, "the session goes on: \(log)")
        }
        let progress = try #require(study.session("viewer")?.stimuli["first"])
        #expect(progress.frames == 11, "the 4 frames sent hidden are not counted: \(progress)")
        let viewing = try #require(progress.viewing)
        #expect(viewing.events.map(\.kind) == [.hidden, .visible, .stall], "\(viewing.events)")
        #expect(viewing.refused == 4 && viewing.camera?.width == 640 && viewing.screen?.height == 720)
        #expect(viewing.playback?.droppedFrames == 2 && viewing.timing?.p95 == 14)
        let summary = viewing.figures(duration: 3)
        #expect(abs(summary.hiddenSeconds - 0.7) < 1e-9 && summary.stalls == 1, "\(summary)")
        // The stall's place on the time line, through manifest.csv's cells and back.
        #expect(summary.stallSpans.count == 1 && abs((summary.stallSpans.first?.upperBound ?? 0) - 2.5) < 1e-9)
        let cells = Dictionary(uniqueKeysWithValues: zip(ViewingFigures.columns, summary.cells))
        #expect(cells["stallsAt"] == "2.100+0.400" && ViewingFigures(cells: cells)?.stallSpans == summary.stallSpans)
        // Hidden for 23 % of the stimulus: the panel's list says what to review (the default allows 10 %).
        let line = study.approvals(in: .gmt).split(separator: "\n").first { $0.hasPrefix("viewer,") } ?? ""
        #expect(line.contains("first: viewing rule hidden: the page was hidden 0.7 s of 3 s (23 %"), "\(line)")
    }

    @Test func aPageThatSendsNoEvents_hasNoViewing() async throws {
        let (parent, service, _, study) = try StudySocketTests.served(framesPerSecond: 40) { $0.idleSeconds = 600 }
        defer { try? FileManager.default.removeItem(at: parent) }
        let token = try await StudyCollectionTests.consented(study, "quiet")
        try await service.application().test(.live) { client in
            _ = try await Self.play(
                client, token: token, steps: (0..<15).map { .frame(Double($0) * 200) }, gap: Self.gap)
        }
        let progress = try #require(study.session("quiet")?.stimuli["first"])
        #expect(progress.frames == 15 && progress.viewing == nil, "viewing not recorded, not \"watched fully\"")
        // The same photo in every frame: flagged for review on the dashboard and in approvals.csv (issue 94).
        #expect((progress.stillSeconds ?? 0) >= 2.2, "\(progress)")
        let line = study.approvals(in: .gmt).split(separator: "\n").first { $0.hasPrefix("quiet,") } ?? ""
        #expect(line.contains("first: no natural movement (blink, head turn or expression) for "), "\(line)")
        let row = study.rows(exclusions: [:]).first { $0.participant == "quiet" }
        #expect(row?.review?.contains("a photo? review before paying") == true, "\(String(describing: row))")
    }

    @Test func aPageReplacedByAnother_keepsTheEventsItHadReceived() async throws {
        let (parent, service, _, study) = try StudySocketTests.served(framesPerSecond: 40) { $0.idleSeconds = 600 }
        defer { try? FileManager.default.removeItem(at: parent) }
        let token = try await StudyCollectionTests.consented(study, "twice")
        let portrait = [UInt8](try Data(contentsOf: URL(fileURLWithPath: SampleMedia.astronautPath)))
        try await service.application().test(.live) { client in
            let log = TextLog()
            let first = Task {
                try await client.ws("/studies/ad/live?session=\(token)&stimulus=first") { inbound, outbound, _ in
                    var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
                    while case .text(let text) = try await messages.next() {
                        log.append(text)
                        if text.contains(#""type":"ready""#) { break }
                    }
                    for text in [
                        #"{"type":"viewing","event":{"kind":"hidden","at":0.1}}"#,
                        #"{"type":"viewing","event":{"kind":"visible","at":0.3}}"#,
                    ] { try await outbound.write(.text(text)) }
                    var bits = 400.0
                    let stamp = withUnsafeBytes(of: &bits) { Array($0) }
                    try await outbound.write(.binary(ByteBuffer(bytes: stamp + portrait)))
                    while let message = try await messages.next() {
                        if case .text(let text) = message { log.append(text) }
                    }
                }
            }
            try await StudySocketTests.eventually("the first page's events are in its live progress") {
                study.rows(exclusions: [:]).first?.viewing?.hiddenSeconds ?? 0 > 0.19
            }
            // Another page of theirs (a reload) takes over and watches to the end.
            _ = try await Self.play(
                client, token: token, steps: (0..<15).map { .frame(Double($0) * 200) }, gap: Self.gap)
            _ = try await first.value
            #expect(log.all.contains { $0.contains(#""type":"replaced""#) }, "\(log.all)")
        }
        let session = try #require(study.session("twice"))
        let earlier = try #require(session.attempts.first { $0.stimulus == "first" }, "\(session)")
        #expect(earlier.progress.viewing?.events.map(\.kind) == [.hidden, .visible], "\(earlier)")
        #expect(session.stimuli["first"]?.viewing == nil, "the second page sent no events: \(session)")
    }

    /// A skip ends the stimulus where it came, measured over what played.
    ///
    /// The Skip button shows after 1 s: a skip at 1.5 s ends the 3-s stimulus there (enough: the viewer goes on),
    /// kept with the viewing; a skip before the button shows, or a second one, is refused. A study without the
    /// button refuses any skip.
    @Test func aSkip_endsTheStimulusThere_andCountsWhatPlayed() async throws {
        let parent = try StudyCollectionTests.studies(skippableAfter: 1)
        defer { try? FileManager.default.removeItem(at: parent) }
        let options = try ServiceOptions(port: 0, studiesFolder: parent.path, analysisFramesPerSecond: 40)
        let service = try MienService(options: options, models: ModelStore())
        let study = try #require(service.studies?.studies["ad"])
        let token = try await StudyCollectionTests.consented(study, "skipper")
        var steps: [Step] = (0..<8).map { .frame(Double($0) * 200) }
        steps += [Self.event("skip", 0.4), Self.event("skip", 1.5), Self.event("skip", 1.6)]
        let played = steps
        try await service.application().test(.live) { client in
            let log = try await Self.play(client, token: token, steps: played, gap: Self.gap) {
                study.rows(exclusions: [:]).first { $0.participant == "skipper" }?.live?.coverage ?? 0 > 0
            }
            let errors = log.filter { $0.contains(#""type":"error""#) }
            #expect(errors.contains { $0.contains("before the Skip button shows") }, "\(errors)")
            #expect(errors.contains { $0.contains("already skipped") }, "\(errors)")
            let ended = try #require(log.first { $0.contains(#""type":"ended""#) }, "\(log)")
            #expect(ended.contains(#""enough":true"#), "1.4 s measured of the 1.5 s that played: \(ended)")
        }
        let progress = try #require(study.session("skipper")?.stimuli["first"])
        #expect(progress.viewing?.skippedAt == 1.5 && progress.coverage >= 0.9, "\(progress)")
        let figures = try #require(progress.viewing?.figures(duration: 3))
        #expect(figures.skippedAt == 1.5)
        let row = try #require(study.rows(exclusions: [:]).first { $0.participant == "skipper" })
        #expect(row.viewing?.skippedAt == 1.5, "manifest.csv carries it: \(row)")

        let (other, plain, _, unskippable) = try StudySocketTests.served(framesPerSecond: 40) { $0.idleSeconds = 600 }
        defer { try? FileManager.default.removeItem(at: other) }
        let second = try await StudyCollectionTests.consented(unskippable, "viewer")
        try await plain.application().test(.live) { client in
            let log = try await Self.play(
                client, token: second, steps: [.frame(0), Self.event("skip", 1.5)], gap: .milliseconds(50))
            #expect(log.contains { $0.contains("shows no Skip button") }, "\(log)")
        }
        #expect(unskippable.session("viewer")?.stimuli["first"]?.viewing?.skippedAt == nil)
    }
}
