import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Mien
import MienCore
import MienStudies
import NIOCore
import NIOWebSocket

/// The participants' side of `mien serve --studies` (no service token: a participant has only the link).
///
/// - `GET /studies/{name}`: the participant page; `GET /studies/{name}/config`: what the page needs (stimuli,
///   consent text, frame rate, framing limits, the researcher); `GET /studies/{name}/stimuli/{file}`: a stimulus.
/// - `POST /studies/{name}/sessions`: consent (`{"agreed": true, "participant": ID?, "group": G?}`) → the
///   participant's token, group, order and the stimuli already watched (an ID coming back goes on); limited per
///   address (429 with `Retry-After`).
/// - `POST /studies/{name}/resume` (the token a page kept, after a reload): the same, for that session.
/// - `POST /studies/{name}/declines`: someone declined (counted, nothing kept) → the screen-out redirect.
/// - `POST /studies/{name}/screenout` (`{"reason": "noCamera" | "noFace"}`) → the screen-out redirect.
/// - `GET /studies/{name}/live?session=TOKEN[&stimulus=NAME]` (WebSocket, `StudySocket`): camera frames in
///   (`LiveFrameMessage` stamped with the stimulus's media time); without `stimulus`, the framing check.
/// - `POST /studies/{name}/answers` (`{"answers": {"QUESTION": VALUE | null, ...}}`, one page of the study's
///   questions, with `Authorization: Bearer TOKEN`) → every question answered so far.
/// - `POST /studies/{name}/complete`, `GET|PUT /studies/{name}/recording[?offset=N]`,
///   `POST /studies/{name}/recording/complete`: with `Authorization: Bearer TOKEN`.
///
/// A token writes only its own participant's files, and no route here reads anyone's data.
struct StudyRoutes: RouteGroup {
    let desk: StudyDesk
    let models: ModelStore
    let metrics: ServiceMetrics
    let options: ServiceOptions

    /// The largest consent or completion body, in bytes.
    static let smallBody = 4096
    /// The largest page of answers, in bytes (50 free-text answers of 1,000 characters fit; thousands of answers do
    /// not).
    static let answersBody = 64 << 10
    /// The largest recording chunk, in bytes.
    static let chunkBytes = 8 << 20

    var paths: [(String, [HTTPRequest.Method])] {
        [
            ("/studies/{name}", [.get]), ("/studies/{name}/config", [.get]), ("/studies/{name}/stimuli/{file}", [.get]),
            ("/studies/{name}/sessions", [.post]), ("/studies/{name}/resume", [.post]),
            ("/studies/{name}/declines", [.post]), ("/studies/{name}/screenout", [.post]),
            ("/studies/{name}/live", [.get]), ("/studies/{name}/answers", [.post]),
            ("/studies/{name}/complete", [.post]),
            ("/studies/{name}/recording", [.get, .put]), ("/studies/{name}/recording/complete", [.post]),
        ]
    }

    /// Whether a request is the participants' (the service token is not asked for; these routes check the
    /// participant's own token where they write).
    static func isParticipantRoute(_ path: String) -> Bool {
        let segments = path.split(separator: "/")
        guard segments.count >= 2, segments[0] == "studies" else { return false }
        return segments.count == 2 || !["dashboard", "participants"].contains(segments[2])
    }

    func register(on router: Router<MienRequestContext>) {
        router.get("/studies/{name}") { [desk] _, context in
            _ = try await desk.study(try context.parameters.require("name"))
            return DocumentRoutes.file(ServiceResources.participantPage, type: "text/html; charset=utf-8")
        }
        router.get("/studies/{name}/config") { [desk] _, context in
            let study = try await desk.study(try context.parameters.require("name"))
            return JSONBody.response(PageConfiguration(study))
        }
        router.get("/studies/{name}/stimuli/{file}") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let file = try context.parameters.require("file")
            // Only a file the settings list: nothing a client sends becomes a path by itself.
            guard let stimulus = study.settings.stimuli.first(where: { $0.file == file }) else {
                throw ServiceRefusal(status: .notFound, code: "notFound", message: "no such stimulus")
            }
            let path = study.folder.stimuli.appendingPathComponent(stimulus.file).path
            let size: Int
            do {
                size = try await BlockingWork.run {
                    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
                }
            } catch {
                throw ServiceRefusal(status: .notFound, code: "notFound", message: "no such stimulus")
            }
            var headers: HTTPFields = [
                .contentType: file.lowercased().hasSuffix(".webm") ? "video/webm" : "video/mp4",
                .cacheControl: "private, max-age=3600", .acceptRanges: "bytes",
            ]
            // Streamed from the file in chunks on NIO's file thread pool, by the range a video element asks for:
            // never the whole stimulus in memory per request.
            switch ByteRange.request(request.headers[.range], size: size) {
            case .whole:
                guard size > 0 else { return Response(status: .ok, headers: headers) }
                let body = try await FileIO().loadFile(path: path, range: 0...(size - 1), context: context)
                return Response(status: .ok, headers: headers, body: body)
            case .part(let part):
                headers[.contentRange] = part.contentRange(of: size)
                let body = try await FileIO().loadFile(path: path, range: part.bytes, context: context)
                return Response(status: .partialContent, headers: headers, body: body)
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        router.post("/studies/{name}/sessions") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            try limit(study, request, context)
            // A body over the limit is refused as such (413), not as malformed.
            let body = try await Self.small(request)
            guard let consent = ParticipantMessage.decode(ParticipantMessage.Consent.self, from: body), consent.agreed
            else {
                throw ServiceRefusal(
                    status: .badRequest, code: "invalidArgument",
                    message: #"consent is {"agreed": true, "participant": ID?, "group": G?}"#)
            }
            let admission = try await study.admit(
                participant: consent.participant, group: consent.group, signature: consent.groupSignature,
                attributes: consent.attributes)
            return JSONBody.response(admission, status: .created)
        }
        router.post("/studies/{name}/resume") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            return JSONBody.response(try await study.resume(token: Self.bearer(request)))
        }
        router.post("/studies/{name}/declines") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            try limit(study, request, context)
            let body = try await Self.small(request)
            let decline =
                body.isEmpty
                ? ParticipantMessage.Decline() : ParticipantMessage.decode(ParticipantMessage.Decline.self, from: body)
            guard let decline else {
                throw ServiceRefusal(
                    status: .badRequest, code: "invalidArgument",
                    message: #"a decline is {"participant": ID?, "group": G?}"#)
            }
            return JSONBody.response(
                Redirect(
                    redirect: await study.declined(
                        participant: decline.participant, group: decline.group, signature: decline.groupSignature)))
        }
        router.post("/studies/{name}/screenout") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let id = try await study.participant(token: Self.bearer(request))
            let data = try await Self.small(request)
            guard let body = ParticipantMessage.decode(ParticipantMessage.Screenout.self, from: data),
                let reason = ParticipantSession.Reason(rawValue: body.reason)
            else {
                throw ServiceRefusal(
                    status: .badRequest, code: "invalidArgument", message: #"send {"reason": "noCamera" or "noFace"}"#)
            }
            return JSONBody.response(Redirect(redirect: try await study.screenOut(id, reason: reason)))
        }
        router.post("/studies/{name}/answers") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let id = try await study.participant(token: Self.bearer(request))
            let data: Data
            do {
                data = Data([UInt8](buffer: try await request.body.collect(upTo: Self.answersBody)))
            } catch {
                throw ServiceRefusal(
                    status: .contentTooLarge, code: "tooLarge",
                    message: "a page of answers is at most \(Self.answersBody) bytes")
            }
            guard let page = ParticipantMessage.decode(ParticipantMessage.AnswersPage.self, from: data) else {
                throw ServiceRefusal(
                    status: .badRequest, code: "invalidArgument",
                    message: #"send {"answers": {"QUESTION": a number, an option, a list of options, text or null}}"#)
            }
            if let participant = page.participant, participant != id {
                throw ServiceRefusal(
                    status: .forbidden, code: "notYours", message: "a session sends only its own participant's answers")
            }
            struct Answered: Encodable { var answered: [String] }
            return JSONBody.response(Answered(answered: try await study.answer(id, page.answers)))
        }
        router.post("/studies/{name}/complete") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let id = try await study.participant(token: Self.bearer(request))
            let (url, code) = try await study.complete(id)
            struct Completion: Encodable {
                var code: String
                var redirect: String?
            }
            return JSONBody.response(Completion(code: code, redirect: url))
        }
        router.get("/studies/{name}/recording") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let id = try await study.participant(token: Self.bearer(request))
            return JSONBody.response(["bytes": await study.recordingBytes(id)])
        }
        router.put("/studies/{name}/recording") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let id = try await study.participant(token: Self.bearer(request))
            guard let text = request.uri.queryParameters["offset"], let offset = Int(decimal: text), offset >= 0 else {
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
            let bytes = try await study.appendRecording(id, offset: offset, chunk: [UInt8](buffer: chunk))
            return JSONBody.response(["bytes": bytes])
        }
        router.post("/studies/{name}/recording/complete") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let id = try await study.participant(token: Self.bearer(request))
            let data = try await Self.small(request)
            guard let body = ParticipantMessage.decode(ParticipantMessage.RecordingOnsets.self, from: data),
                body.inRange
            else {
                throw ServiceRefusal(
                    status: .badRequest, code: "invalidArgument",
                    message:
                        #"send {"onsets": {"STIMULUS": SECONDS, ...}} (each stimulus's start in the recording, 0 to 86400 s)"#
                )
            }
            try await study.finishRecording(id, onsets: body.onsets)
            return Response(status: .noContent)
        }
        // Refusals (no such study, no token or another study's) are said on the socket, in the one error shape,
        // then it is closed with 1008: a refused upgrade would reach the page as a bare 400.
        router.ws("/studies/{name}/live") { [desk, models, metrics, options] inbound, outbound, context in
            let query = context.request.uri.queryParameters
            let name = String(context.request.uri.path.split(separator: "/").dropFirst().first ?? "")
            try await StudySocket(
                desk: desk, models: models, metrics: metrics, options: options, inbound: inbound, outbound: outbound
            ).run(study: name, token: query["session"].map(String.init), stimulus: query["stimulus"].map(String.init))
        }
    }

    /// A consent or decline within the study's limit for the client's address.
    /// - Throws: `ServiceRefusal` 429 saying when to try again (also in `Retry-After`).
    private func limit(_ study: CollectedStudy, _ request: Request, _ context: MienRequestContext) throws {
        let fieldwork = study.settings.fieldwork
        guard
            let wait = desk.consents.take(
                "\(study.name) \(AddressRange.limitKey(context.clientAddress(request, trusting: options.trustedProxies)))",
                burst: fieldwork.consentBurst,
                perMinute: fieldwork.consentsPerMinute)
        else { return }
        CollectedStudy.tally.note(
            "\(study.name) rate", "study \(study.name): a consent was refused: too many from one address")
        throw HTTPError(
            .tooManyRequests, headers: [.retryAfter: "\(wait)"],
            message: "too many consents from this address; please try again in \(wait) s")
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

/// Where the page sends a participant (a panel's screen-out link), if anywhere.
struct Redirect: Encodable {
    var redirect: String?
}
