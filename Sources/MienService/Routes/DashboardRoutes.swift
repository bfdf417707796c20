import Foundation
import Hummingbird
import HummingbirdWebSocket
import Mien
import MienStudies
import NIOCore

/// The researcher's side of `mien serve --studies` (the service token on every request).
///
/// - `GET /studies`: the studies served, and the folders that could not be.
/// - `GET /studies/{name}/dashboard`: the dashboard page; `…/dashboard/fieldwork`: counts per group against the
///   targets; `…/dashboard/participants`: every participant's state, step, times, code, share measured, live
///   progress and why they are excluded; `…/dashboard/approvals.csv?tz=ZONE`: the list for the panel provider;
///   `…/dashboard/study.html`: the study page of the participants measured so far (aggregated again when one has
///   finished a stimulus since); `…/dashboard/{table}`: `curves.csv`, `attention.csv`, `retention.csv`, `participants.csv`, `moments.csv`,
///   `isc.csv`, `kpis.csv` (what study.html's verdict says), `manifest.csv`, `answers.csv` (a study with questions). No export holds a path of the server's.
/// - `DELETE /studies/{name}/participants/{id}`: every file of that participant (the right to erasure).
struct DashboardRoutes: RouteGroup {
    let desk: StudyDesk

    var paths: [(String, [HTTPRequest.Method])] {
        [
            ("/studies", [.get]), ("/studies/{name}/dashboard", [.get]),
            ("/studies/{name}/dashboard/{table}", [.get]), ("/studies/{name}/participants/{id}", [.delete]),
        ]
    }

    func register(on router: Router<MienRequestContext>) {
        router.get("/studies") { [desk] _, _ in
            struct Listing: Encodable {
                var studies: [String]
                var refused: [String: String]
            }
            return JSONBody.response(Listing(studies: desk.studies.keys.sorted(), refused: desk.refused))
        }
        router.get("/studies/{name}/dashboard") { [desk] _, context in
            _ = try await desk.study(try context.parameters.require("name"))
            return DocumentRoutes.file(ServiceResources.dashboardPage, type: "text/html; charset=utf-8")
        }
        router.get("/studies/{name}/dashboard/{table}") { [desk] request, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let table = try context.parameters.require("table")
            // Every participant, whichever server they are on.
            await study.refreshed()
            // The aggregation reads every participant's files: off the event loop.
            if table == "participants" { return JSONBody.response(try await rows(study)) }
            if table == "fieldwork" { return JSONBody.response(await study.summary()) }
            if table == "approvals.csv" {
                let zone = try Self.zone(request.uri.queryParameters["tz"].map(String.init))
                return DocumentRoutes.file(Array(study.approvals(in: zone).utf8), type: "text/csv; charset=utf-8")
            }
            if table == "answers.csv" {
                guard let questions = study.settings.questions else {
                    throw ServiceRefusal(status: .notFound, code: "notFound", message: "this study asks no questions")
                }
                let sessions = Array(study.store.current().sessions.values)
                return DocumentRoutes.file(
                    Array(AnswerTable.csv(sessions, questions: questions).utf8), type: "text/csv; charset=utf-8")
            }
            if table == "manifest.csv" {
                return DocumentRoutes.file(Array(study.manifest().utf8), type: "text/csv; charset=utf-8")
            }
            let entry = try await desk.dashboards.entry(of: study)
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
            case "attention.csv": text = StudyTables.attention(aggregated)
            case "retention.csv": text = StudyTables.retention(aggregated)
            case "participants.csv": text = StudyTables.participants(aggregated, problems: entry.problems)
            case "moments.csv": text = StudyTables.moments(aggregated)
            case "isc.csv": text = StudyTables.correlations(aggregated)
            case "kpis.csv": text = StudyKPIs.csv(aggregated.kpis)
            default:
                throw ServiceRefusal(
                    status: .notFound, code: "notFound",
                    message:
                        "the dashboard has fieldwork, participants, approvals.csv, study.html, curves.csv, attention.csv, retention.csv, participants.csv, moments.csv, isc.csv, kpis.csv, manifest.csv, answers.csv"
                )
            }
            let type = table.hasSuffix(".html") ? "text/html; charset=utf-8" : "text/csv; charset=utf-8"
            return DocumentRoutes.file(Array(text.utf8), type: type)
        }
        router.delete("/studies/{name}/participants/{id}") { [desk] _, context in
            let study = try await desk.study(try context.parameters.require("name"))
            let id = try context.parameters.require("id")
            guard CollectionSettings.isParticipantID(id), try await study.delete(id) else {
                throw ServiceRefusal(status: .notFound, code: "notFound", message: "no participant of that ID")
            }
            return Response(status: .noContent)
        }
    }

    private func rows(_ study: CollectedStudy) async throws -> [CollectedStudy.Row] {
        let entry = try await desk.dashboards.exclusionsEntry(of: study)
        var exclusions: [String: String] = [:]
        // The share watched over each participant's stimuli, weighted by their length.
        var watched: [String: (seconds: Double, of: Double)] = [:]
        for series in entry?.study?.participants ?? [] {
            if !series.included { exclusions[series.row.participant] = series.exclusion }
            if let share = series.onScreenShare, let duration = series.row.duration, duration > 0 {
                let sum = watched[series.row.participant, default: (0, 0)]
                watched[series.row.participant] = (sum.seconds + share * duration, sum.of + duration)
            }
        }
        return study.rows(exclusions: exclusions, onScreen: watched.mapValues { $0.seconds / $0.of })
    }

    /// The time zone a `tz=` names (an IANA name such as `Europe/Berlin`); UTC without one.
    /// - Throws: `ServiceRefusal` 400 for a name the system does not know.
    static func zone(_ name: String?) throws -> TimeZone {
        guard let name, !name.isEmpty else { return TimeZone(secondsFromGMT: 0) ?? .current }
        guard let zone = TimeZone(identifier: name) else {
            throw ServiceRefusal(
                status: .badRequest, code: "invalidArgument", message: "tz= is a time zone such as Europe/Berlin")
        }
        return zone
    }
}
