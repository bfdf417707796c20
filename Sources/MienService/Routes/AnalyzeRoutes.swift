import Foundation
import Hummingbird
import HummingbirdWebSocket
import Mien
import Prometheus

/// `POST /v1/analyze`: one picture in the body, its `DetectorResult` out (discrete-image semantics).
struct AnalyzeRoutes: RouteGroup {
    let options: ServiceOptions
    let metrics: ServiceMetrics
    let pictures: DetectorPool

    var paths: [(String, [HTTPRequest.Method])] { [("/v1/analyze", [.post])] }

    func register(on router: Router<MienRequestContext>) {
        router.post("/v1/analyze") { request, _ in try await analyze(request) }
    }

    private func analyze(_ request: Request) async throws -> Response {
        let settings = try AnalysisSettings(
            query: request.uri.queryParameters.map { (String($0.key), String($0.value)) })
        let detectorOptions = try settings.detectorOptions()
        let body = try await request.body.collect(upTo: options.maximumBodyBytes)
        let arrival = ContinuousClock.now
        let picture = EncodedFrame(
            bytes: [UInt8](buffer: body), timestamp: 0, name: "request body", maximumPixels: options.maximumPixels)
        let key = try String(decoding: JSONLinesWriter.makeEncoder().encode(settings), as: UTF8.self)
        let result = try await pictures.analyze(picture, options: detectorOptions, key: key)
        metrics.framesAnalysed.increment()
        metrics.latency.record(ContinuousClock.now - arrival)
        return JSONBody.response(result)
    }
}
