import Foundation
import Hummingbird
import Logging
import Mien
import MienStudies
import NIOCore

/// The one JSON shape of every error the service answers, over HTTP and on a live socket:
/// `{"error": {"code": "corruptData", "message": "…", "input": "…"}}`.
struct ErrorBody: Codable, Sendable, Equatable {
    struct Detail: Codable, Sendable, Equatable {
        /// A `MienError` code (`corruptData`, `tooLarge`, …) or one of the service's own (`unauthorized`,
        /// `notFound`, `tooFast`, …).
        var code: String
        var message: String
        /// The input the error is about (a request body, a live frame), when there is one.
        var input: String?
    }
    var error: Detail

    init(code: String, message: String, input: String? = nil) {
        error = Detail(code: code, message: message, input: input)
    }

    init(_ error: MienError) {
        self.init(code: error.code.description, message: error.message, input: error.input)
    }

    /// The HTTP status a `MienError` answers with.
    static func status(of error: MienError) -> HTTPResponse.Status {
        switch error.code {
        case .tooLarge: .contentTooLarge
        case .unsupportedFormat: .unsupportedMediaType
        case .corruptData, .invalidOptions, .invalidArgument, .nonMonotonicTimestamp, .truncatedStream: .badRequest
        case .notFound: .notFound
        default: .internalServerError
        }
    }

    /// The response carrying this body.
    func response(_ status: HTTPResponse.Status) -> Response {
        JSONBody.response(self, status: status)
    }
}

/// A request the service refuses for a reason of its own (the job queue is full, ...), with its status.
struct ServiceRefusal: Error, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
}

extension ServiceRefusal {
    /// Fieldwork's refusal as HTTP: the one place a study's decision gets a status.
    init(_ refusal: StudyRefusal) {
        let status: HTTPResponse.Status =
            switch refusal.kind {
            case .unknownParticipant: .unauthorized
            case .notFound: .notFound
            case .invalid: .badRequest
            case .conflict: .conflict
            case .closed: .forbidden
            }
        self.init(status: status, code: refusal.code, message: refusal.message)
    }

    /// `error` as a refusal when it is one (the service's own, or fieldwork's mapped to HTTP).
    static func from(_ error: any Error) -> ServiceRefusal? {
        (error as? ServiceRefusal) ?? (error as? StudyRefusal).map(ServiceRefusal.init)
    }
}

/// Turns whatever a route throws into an `ErrorBody` response, so that clients get one error shape:
/// Mien's errors with their code, Hummingbird's (404, 405, 413, …) with the status's name.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as MienError {
            return ErrorBody(error).response(ErrorBody.status(of: error))
        } catch let refusal as ServiceRefusal {
            return Self.response(refusal)
        } catch let refusal as StudyRefusal {
            return Self.response(ServiceRefusal(refusal))
        } catch let failure as StudyStoreFailure {
            // A store failure a route did not turn into its refusal itself: still one, never a 500 (issue 96 item 6).
            CollectedStudy.logger.error("a study's store cannot answer now: \(failure)")
            var response = ErrorBody(code: CollectedStudy.unavailable.code, message: CollectedStudy.unavailable.message)
                .response(.serviceUnavailable)
            response.headers[.retryAfter] = "5"
            return response
        } catch is NIOTooManyBytesError {
            return ErrorBody(code: "tooLarge", message: "the request body is over the service's limit").response(
                .contentTooLarge)
        } catch let error as HTTPError {
            let code =
                switch error.status {
                case .notFound: "notFound"
                case .unauthorized: "unauthorized"
                case .methodNotAllowed: "methodNotAllowed"
                case .upgradeRequired: "upgradeRequired"
                case .tooManyRequests: "tooManyRequests"
                default: "http"
                }
            var response = ErrorBody(code: code, message: error.body ?? error.status.reasonPhrase).response(
                error.status)
            for field in error.headers { response.headers.append(field) }
            return response
        }
    }

    private static func response(_ refusal: ServiceRefusal) -> Response {
        var response = ErrorBody(code: refusal.code, message: refusal.message).response(refusal.status)
        // A participant route's oversized body (a hostile client's, tens of MB) is never read to its end: the
        // connection closes after the answer, rather than leaving the client blocked sending into it.
        if refusal.status == .contentTooLarge { response.headers[.connection] = "close" }
        // Every 503 passes (a store that cannot save now, a full study server): the page waits this long.
        if refusal.status == .serviceUnavailable, response.headers[.retryAfter] == nil {
            response.headers[.retryAfter] = "5"
        }
        return response
    }
}

/// JSON responses with Mien's encoder (sorted keys, slashes unescaped), as the command line prints them.
enum JSONBody {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        do {
            let data = try JSONLinesWriter.makeEncoder().encode(value)
            return Response(
                status: status, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        } catch {
            return Response(status: .internalServerError)
        }
    }
}
