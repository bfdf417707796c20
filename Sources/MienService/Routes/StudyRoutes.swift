import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Mien
import NIOCore
import NIOWebSocket

/// The participants' side of `mien serve --studies` (no service token: a participant has only the link).
///
/// - `GET /studies/{name}`: the participant page; `GET /studies/{name}/config`: what the page needs (stimuli,
///   consent text, frame rate, framing limits); `GET /studies/{name}/stimuli/{file}`: a stimulus.
/// - `POST /studies/{name}/sessions`: consent (`{"participant": ID?, "group": G?}`) → the participant's token,
///   group and order.
/// - `GET /studies/{name}/live?session=TOKEN[&stimulus=NAME]` (WebSocket): camera frames in (`LiveFrameMessage`
///   stamped with the stimulus's media time); without `stimulus`, the framing check (results come back).
/// - `POST /studies/{name}/complete`, `GET|PUT /studies/{name}/recording[?offset=N]`,
///   `POST /studies/{name}/recording/complete`: with `Authorization: Bearer TOKEN`.
///
/// A token writes only its own participant's files, and no route here reads anyone's data.
struct StudyRoutes: RouteGroup {
    let desk: StudyDesk
    let models: ModelStore
    let metrics: ServiceMetrics
    let options: ServiceOptions
    let sessions: SessionLimiter

    /// The largest consent or completion body, in bytes.
    static let smallBody = 4096
    /// The largest recording chunk, in bytes.
    static let chunkBytes = 8 << 20

    var paths: [(String, [HTTPRequest.Method])] {
        [
            ("/studies/{name}", [.get]), ("/studies/{name}/config", [.get]), ("/studies/{name}/stimuli/{file}", [.get]),
            ("/studies/{name}/sessions", [.post]), ("/studies/{name}/live", [.get]),
            ("/studies/{name}/complete", [.post]), ("/studies/{name}/recording", [.get, .put]),
            ("/studies/{name}/recording/complete", [.post]),
        ]
    }

    /// Whether a request is the participants' (the service token is not asked for; these routes check the
    /// participant's own token where they write).
    static func isParticipantRoute(_ path: String) -> Bool {
        let segments = path.split(separator: "/")
        guard segments.count >= 2, segments[0] == "studies" else { return false }
        return segments.count == 2 || !["dashboard", "participants"].contains(segments[2])
    }

    func register(on router: Router<BasicWebSocketRequestContext>) {
        router.get("/studies/{name}") { [desk] _, context in
            _ = try desk.study(try context.parameters.require("name"))
            return DocumentRoutes.file(ServiceResources.participantPage, type: "text/html; charset=utf-8")
        }
        router.get("/studies/{name}/config") { [desk] _, context in
            let study = try desk.study(try context.parameters.require("name"))
            return JSONBody.response(PageConfiguration(study))
        }
        router.get("/studies/{name}/stimuli/{file}") { [desk] _, context in
            let study = try desk.study(try context.parameters.require("name"))
            let file = try context.parameters.require("file")
            // Only a file the settings list: nothing a client sends becomes a path by itself.
            guard let stimulus = study.settings.stimuli.first(where: { $0.file == file }),
                let data = FileManager.default.contents(
                    atPath: study.folder.stimuli.appendingPathComponent(stimulus.file).path)
            else { throw ServiceRefusal(status: .notFound, code: "notFound", message: "no such stimulus") }
            let type = file.lowercased().hasSuffix(".webm") ? "video/webm" : "video/mp4"
            return Response(
                status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=3600"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.post("/studies/{name}/sessions") { [desk] request, context in
            let study = try desk.study(try context.parameters.require("name"))
            let body = try await Self.small(request)
            struct Consent: Decodable {
                var participant: String?
                var group: String?
                var agreed: Bool
            }
            guard let consent = try? JSONDecoder().decode(Consent.self, from: body), consent.agreed else {
                throw ServiceRefusal(
                    status: .badRequest, code: "invalidArgument",
                    message: #"consent is {"agreed": true, "participant": ID?, "group": G?}"#)
            }
            let admission = try study.admit(participant: consent.participant, group: consent.group)
            return JSONBody.response(admission, status: .created)
        }
        router.post("/studies/{name}/complete") { [desk] request, context in
            let study = try desk.study(try context.parameters.require("name"))
            let id = try study.participant(token: Self.bearer(request))
            let (url, code) = try study.complete(id)
            struct Completion: Encodable {
                var code: String
                var redirect: String?
            }
            return JSONBody.response(Completion(code: code, redirect: url))
        }
        router.get("/studies/{name}/recording") { [desk] request, context in
            let study = try desk.study(try context.parameters.require("name"))
            let id = try study.participant(token: Self.bearer(request))
            return JSONBody.response(["bytes": study.recordingBytes(id)])
        }
        router.put("/studies/{name}/recording") { [desk] request, context in
            let study = try desk.study(try context.parameters.require("name"))
            let id = try study.participant(token: Self.bearer(request))
            guard let text = request.uri.queryParameters["offset"], let offset = Int(text), offset >= 0 else {
                throw ServiceRefusal(
                    status: .badRequest, code: "invalidArgument", message: "a chunk is sent with ?offset=BYTES")
            }
            let chunk: ByteBuffer
            do {
                chunk = try await request.body.collect(upTo: Self.chunkBytes)
            } catch {
                throw ServiceRefusal(
                    status: .contentTooLarge, code: "tooLarge", message: "a chunk may hold \(Self.chunkBytes) bytes")
            }
            let bytes = try study.appendRecording(id, offset: offset, chunk: [UInt8](buffer: chunk))
            return JSONBody.response(["bytes": bytes])
        }
        router.post("/studies/{name}/recording/complete") { [desk] request, context in
            let study = try desk.study(try context.parameters.require("name"))
            let id = try study.participant(token: Self.bearer(request))
            struct Onsets: Decodable { var onsets: [String: Double] }
            guard let body = try? JSONDecoder().decode(Onsets.self, from: try await Self.small(request)) else {
                throw ServiceRefusal(
                    status: .badRequest, code: "invalidArgument",
                    message: #"send {"onsets": {"STIMULUS": SECONDS, ...}} (each stimulus's start in the recording)"#)
            }
            try await Offload.run { try study.finishRecording(id, onsets: body.onsets) }
            return Response(status: .noContent)
        }
        // Refusals (no such study, no token or another study's) are said on the socket, in the one error shape,
        // then it is closed with 1008: a refused upgrade would reach the page as a bare 400.
        router.ws("/studies/{name}/live") { inbound, outbound, context in
            let query = context.request.uri.queryParameters
            let name = String(context.request.uri.path.split(separator: "/").dropFirst().first ?? "")
            try await stream(
                study: name, token: query["session"].map(String.init), stimulus: query["stimulus"].map(String.init),
                inbound: inbound, outbound: outbound)
        }
    }

    private func stream(
        study name: String, token: String?, stimulus: String?, inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter
    ) async throws {
        // A participant's socket is a live session: `--max-sessions` is the machine's capacity (docs/performance.md).
        guard sessions.open() else {
            let body = ErrorBody(
                code: "tooManySessions",
                message: "\(options.maximumSessions) sessions are open; try again in a minute")
            try await outbound.write(.text(LiveMessage.failure(body).text()))
            try await outbound.close(.unknown(1013), reason: "too many sessions")
            return
        }
        defer { sessions.close() }
        let outbox = LiveOutbox(capacity: options.maximumOutgoingMessages)
        let opened: StimulusStream
        do {
            let study = try desk.study(name)
            let id = try study.participant(token: token)
            let chosen = try stimulus.map { try study.beginStimulus(id, stimulus: $0) }
            if stimulus == nil { try study.beginFraming(id) }
            do {
                opened = try await Offload.run {
                    try StimulusStream(
                        study: study, participant: id, stimulus: chosen, outbox: outbox, models: models,
                        metrics: metrics)
                }
            } catch {
                if let chosen {
                    study.endStimulus(id, stimulus: chosen, progress: .init(), aborted: true)
                } else {
                    study.framingEnded(id)
                }
                throw error
            }
        } catch {
            let body: ErrorBody =
                if let refusal = error as? ServiceRefusal {
                    ErrorBody(code: refusal.code, message: refusal.message)
                } else {
                    (error as? MienError).map(ErrorBody.init) ?? ErrorBody(code: "internalFailure", message: "\(error)")
                }
            try await outbound.write(.text(LiveMessage.failure(body).text()))
            try await outbound.close(.policyViolation, reason: body.error.code)
            return
        }
        try await outbound.write(.text(#"{"type":"ready"}"#))
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in outbox.messages {
                    try await outbound.write(.text(message))
                    outbox.written()
                }
            }
            do {
                for try await message in inbound.messages(maxSize: options.maximumMessageBytes) {
                    switch message {
                    case .binary(let buffer): opened.receiveFrame([UInt8](buffer: buffer))
                    case .text(let text): opened.receiveText(text)
                    }
                    if opened.finished { break }
                }
            } catch {
                // A connection cut (network lost, tab closed): what was measured is kept below.
            }
            _ = try? await Offload.run { opened.close() }
            // Said once the participant's files and session are written, so the page's next request (the next
            // stimulus, completion) finds them.
            if opened.finished { outbox.send(#"{"type":"ended"}"#) }
            outbox.close()
            try? await group.next()
            try? await outbound.close(.normalClosure, reason: nil)
            group.cancelAll()
        }
    }

    /// The participant token of an HTTP request (`Authorization: Bearer …`).
    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst("Bearer ".count))
    }

    /// A small JSON body.
    static func small(_ request: Request) async throws -> Data {
        do {
            return Data([UInt8](buffer: try await request.body.collect(upTo: smallBody)))
        } catch {
            throw ServiceRefusal(
                status: .contentTooLarge, code: "tooLarge", message: "a body here is at most \(smallBody) bytes")
        }
    }
}

/// What the participant page needs to know of its study: nothing about anyone's data.
struct PageConfiguration: Encodable {
    struct Stimulus: Encodable {
        var name: String
        var url: String
        var duration: Double
    }
    var study: String
    var stimuli: [Stimulus]
    var groups: [String]
    var consent: String
    var frameRate: Double
    var maximumFrameSide: Int
    var record: Bool
    var framing: CollectionSettings.Framing

    init(_ study: CollectedStudy) {
        self.study = study.name
        stimuli = study.settings.stimuli.map {
            Stimulus(name: $0.name, url: "/studies/\(study.name)/stimuli/\($0.file)", duration: $0.duration)
        }
        groups = study.settings.groups
        consent = study.settings.consent
        frameRate = study.settings.frameRate
        maximumFrameSide = study.settings.maximumFrameSide
        record = study.settings.record
        framing = study.settings.framing
    }
}
