import Foundation
import Hummingbird
import HummingbirdWebSocket
import Mien
import MienCore
import NIOCore

/// `/v1/jobs`: uploads analysed in the background by the same `Detector` and writers as `mien analyze`,
/// their status and their outputs.
struct JobRoutes: RouteGroup {
    let options: ServiceOptions
    let jobs: JobQueue

    var paths: [(String, [HTTPRequest.Method])] {
        [("/v1/jobs", [.post]), ("/v1/jobs/{id}", [.get, .delete]), ("/v1/jobs/{id}/{output}", [.get])]
    }

    func register(on router: Router<MienRequestContext>) {
        router.post("/v1/jobs") { request, context in try await submit(request, context) }
        router.get("/v1/jobs/{id}") { [jobs] _, context in
            let id = try context.parameters.require("id")
            guard JobQueue.isJobID(id), let status = jobs.status(of: id) else { throw Self.noJob(id) }
            return JSONBody.response(status)
        }
        router.get("/v1/jobs/{id}/{output}") { [jobs] _, context in
            let id = try context.parameters.require("id")
            let output = try context.parameters.require("output")
            guard JobQueue.isJobID(id), let status = jobs.status(of: id) else { throw Self.noJob(id) }
            guard let type = JobQueue.outputs[output]?.type else {
                throw ServiceRefusal(
                    status: .notFound, code: "notFound",
                    message: "a job has \(JobQueue.outputs.keys.sorted().joined(separator: ", ")), not \(output)")
            }
            // The job exists: an output it does not have yet (or will never have) is a conflict with its state,
            // not a missing resource.
            let url = jobs.output(output, of: id)
            // Its size read off the cooperative pool, then streamed from the file in chunks on NIO's file thread
            // pool (a video's JSON Lines run to megabytes): never read whole into memory per request.
            let size = await BlockingWork.run { () -> Int? in
                url.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber }?.intValue
            }
            guard let url, let size else {
                throw ServiceRefusal(
                    status: .conflict, code: "notReady",
                    message: status.state == .failed || status.state == .cancelled
                        ? "the job is \(status.state.rawValue); it has no outputs"
                        : "the job is \(status.state.rawValue); its outputs come when it is done")
            }
            let headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
            guard size > 0 else { return Response(status: .ok, headers: headers) }
            let body = try await FileIO().loadFile(path: url.path, range: 0...(size - 1), context: context)
            return Response(status: .ok, headers: headers, body: body)
        }
        router.delete("/v1/jobs/{id}") { [jobs] _, context in
            let id = try context.parameters.require("id")
            guard await jobs.remove(id) else { throw Self.noJob(id) }
            return Response(status: .noContent)
        }
    }

    /// Streams the upload to the job's folder (refused past `maximumUploadBytes`), then queues it: 202 with
    /// the job's status and its URL in `Location`.
    private func submit(_ request: Request, _ context: MienRequestContext) async throws -> Response {
        var query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let name = query.first { $0.0 == "name" }?.1 ?? "upload"
        query.removeAll { $0.0 == "name" }
        let settings = try AnalysisSettings(query: query)
        let detectorOptions = try settings.detectorOptions()
        let (id, folder) = try await jobs.reserve()
        let upload = folder.appendingPathComponent("upload")
        do {
            try await Self.save(request.body, to: upload, limit: options.maximumUploadBytes, context: context)
            // A body that is neither a picture nor a video Mien reads is refused now (415 or 400), not queued
            // to fail later.
            let path = upload.path
            try await BlockingWork.run { _ = try InputSource.open(path: path) }
        } catch {
            await jobs.release(id)
            throw Self.naming(error, upload: upload.path, as: name)
        }
        await jobs.submit(id: id, input: name, upload: upload, settings: settings, options: detectorOptions)
        var response = JSONBody.response(jobs.status(of: id), status: .accepted)
        response.headers[.location] = "/v1/jobs/\(id)"
        return response
    }

    /// Writes a request body to `url` as it arrives, never holding more than one chunk in memory, on NIO's file
    /// thread pool (Hummingbird's `FileIO`), not the cooperative pool.
    /// - Throws: `.tooLarge` past `limit` bytes, `.corruptData` for an empty body, `.ioFailure`.
    private static func save(_ body: RequestBody, to url: URL, limit: Int, context: MienRequestContext) async throws {
        let limited = LimitedBody(body, limit: limit)
        do {
            try await FileIO().writeFile(contents: limited, path: url.path, context: context)
        } catch {
            // The file system wraps what the body threw: the limit is told as itself, not as a write failure.
            if limited.bytes > limit {
                throw MienError(.tooLarge, "the upload is over the limit of \(limit) bytes", input: "request body")
            }
            throw MienError(.ioFailure, "cannot write the upload's file", input: url.path, cause: "\(error)")
        }
        guard limited.bytes > 0 else { throw MienError(.corruptData, "the upload is empty", input: "request body") }
    }

    /// `error` naming the upload by the client's name for it rather than by its path on the server.
    private static func naming(_ error: any Error, upload path: String, as name: String) -> any Error {
        guard var error = error as? MienError else { return error }
        if error.input == nil || error.input == path { error.input = name }
        error.message = error.message.replacingOccurrences(of: path, with: name)
        error.cause = error.cause?.replacingOccurrences(of: path, with: name)
        return error
    }

    private static func noJob(_ id: String) -> ServiceRefusal {
        ServiceRefusal(status: .notFound, code: "notFound", message: "no job \(id)")
    }
}
