import Foundation
import Hummingbird
import HummingbirdWebSocket
import Mien
import NIOCore

/// The researcher's side of `mien serve --studies` (the service token on every request).
///
/// - `GET /studies`: the studies served, and the folders that could not be.
/// - `GET /studies/{name}/dashboard`: the dashboard page; `…/dashboard/participants`: every participant's
///   state, group, coverage and why they are excluded; `…/dashboard/study.html`: the study page of the
///   participants measured so far (aggregated again when one has finished a stimulus since);
///   `…/dashboard/{table}`: `curves.csv`, `participants.csv`, `moments.csv`, `isc.csv`, `manifest.csv`.
/// - `DELETE /studies/{name}/participants/{id}`: every file of that participant (the right to erasure).
struct DashboardRoutes: RouteGroup {
    let desk: StudyDesk

    var paths: [(String, [HTTPRequest.Method])] {
        [
            ("/studies", [.get]), ("/studies/{name}/dashboard", [.get]),
            ("/studies/{name}/dashboard/{table}", [.get]), ("/studies/{name}/participants/{id}", [.delete]),
        ]
    }

    /// One participant as the dashboard lists them.
    struct Row: Encodable {
        var participant: String
        var group: String?
        var state: String
        var started: String
        var finished: String?
        /// Share of the study's stimulus time measured, 0...1.
        var coverage: Double
        /// Share of analysed frames with a face, 0...1 (nil before any frame).
        var faceShare: Double?
        var framingFailures: Int
        var reason: String?
        /// Why `mien study` leaves them out, when it does (face share, too little measured).
        var exclusion: String?
        var recordingBytes: Int
    }

    func register(on router: Router<BasicWebSocketRequestContext>) {
        router.get("/studies") { [desk] _, _ in
            struct Listing: Encodable {
                var studies: [String]
                var refused: [String: String]
            }
            return JSONBody.response(Listing(studies: desk.studies.keys.sorted(), refused: desk.refused))
        }
        router.get("/studies/{name}/dashboard") { [desk] _, context in
            _ = try desk.study(try context.parameters.require("name"))
            return DocumentRoutes.file(ServiceResources.dashboardPage, type: "text/html; charset=utf-8")
        }
        router.get("/studies/{name}/dashboard/{table}") { [desk] _, context in
            let study = try desk.study(try context.parameters.require("name"))
            let table = try context.parameters.require("table")
            // The aggregation reads every participant's files: off the event loop.
            if table == "participants" { return JSONBody.response(try await Offload.run { try rows(study) }) }
            if table == "manifest.csv" {
                let data = FileManager.default.contents(atPath: study.folder.manifest.path) ?? Data()
                return DocumentRoutes.file([UInt8](data), type: "text/csv; charset=utf-8")
            }
            let entry = try await Offload.run { try desk.dashboards.entry(of: study) }
            guard let aggregated = entry.study else {
                if table == "study.html" {
                    return DocumentRoutes.file(
                        Array("<!doctype html><p>No participant has been measured yet.</p>".utf8),
                        type: "text/html; charset=utf-8")
                }
                throw ServiceRefusal(
                    status: .conflict, code: "notReady", message: "no participant has been measured yet")
            }
            let text: String
            switch table {
            case "study.html": text = try StudyPage.render(aggregated, generator: "mien serve --studies")
            case "curves.csv": text = StudyTables.curves(aggregated)
            case "participants.csv": text = StudyTables.participants(aggregated, problems: entry.problems)
            case "moments.csv": text = StudyTables.moments(aggregated)
            case "isc.csv": text = StudyTables.correlations(aggregated)
            default:
                throw ServiceRefusal(
                    status: .notFound, code: "notFound",
                    message:
                        "the dashboard has participants, study.html, curves.csv, participants.csv, moments.csv, isc.csv, manifest.csv"
                )
            }
            let type = table.hasSuffix(".html") ? "text/html; charset=utf-8" : "text/csv; charset=utf-8"
            return DocumentRoutes.file(Array(text.utf8), type: type)
        }
        router.delete("/studies/{name}/participants/{id}") { [desk] _, context in
            let study = try desk.study(try context.parameters.require("name"))
            let id = try context.parameters.require("id")
            guard CollectionSettings.isName(id), try study.delete(id) else {
                throw ServiceRefusal(status: .notFound, code: "notFound", message: "no participant of that ID")
            }
            return Response(status: .noContent)
        }
    }

    private func rows(_ study: CollectedStudy) throws -> [Row] {
        let entry = try desk.dashboards.entry(of: study)
        var exclusions: [String: String] = [:]
        for series in entry.study?.participants ?? [] where !series.included {
            exclusions[series.row.participant] = series.exclusion
        }
        return study.sessions.map { session in
            let analysed = session.stimuli.values.reduce(0) { $0 + $1.analysed }
            let withFace = session.stimuli.values.reduce(0) { $0 + $1.withFace }
            return Row(
                participant: session.participant, group: session.group, state: session.state.rawValue,
                started: session.started, finished: session.finished,
                coverage: (session.coverage(of: study.settings) * 1000).rounded() / 1000,
                faceShare: analysed > 0 ? (Double(withFace) / Double(analysed) * 1000).rounded() / 1000 : nil,
                framingFailures: session.framingFailures, reason: session.reason,
                exclusion: exclusions[session.participant], recordingBytes: session.recordingBytes)
        }
    }
}
