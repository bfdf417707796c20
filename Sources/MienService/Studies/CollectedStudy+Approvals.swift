import Foundation
import Mien
import MienStudies

/// What the panel provider is given: each participant's decision and the code they were shown (`approvals.csv`),
/// what to review before paying, and the manifest of what was measured.
extension CollectedStudy {
    /// "reject: no face in N % of frames" for a participant without a code whose stimuli (this attempt or an
    /// earlier one) were measured enough but too little of it with a face: frames, not a person, were sent.
    static func faceless(_ session: ParticipantSession, _ fieldwork: CollectionSettings.Fieldwork) -> String? {
        let measured = Array(session.stimuli.values) + session.attempts.map(\.progress)
        guard measured.contains(where: { $0.lacksFace(fieldwork) }) else { return nil }
        let analysed = measured.reduce(0) { $0 + $1.analysed }
        let withFace = measured.reduce(0) { $0 + $1.withFace }
        guard analysed > 0 else { return nil }
        return "reject: no face in \(SessionTime.percent(Double(analysed - withFace) / Double(analysed))) of frames"
    }

    /// The completion code `session` was shown (and the panel pays by): the panel's own code where its conventions
    /// give one (Prolific's `cc=`), else the participant's; nil before completion.
    func shownCode(_ session: ParticipantSession) -> String? {
        session.code.map {
            settings.fieldwork.panelConventions.completion(
                settings.completionURL, participant: session.participant, code: $0
            )
            .shown
        }
    }

    /// The participant's own code when the code shown is the panel's (a reference for support, not what the panel
    /// pays by); nil otherwise.
    func reference(_ session: ParticipantSession) -> String? {
        shownCode(session) == session.code ? nil : session.code
    }

    /// `manifest.csv` as the store holds the sessions now (issue 96: a database study's dashboard read the folder's
    /// file, which only a folder store writes, and answered 0 bytes on every server).
    func manifest() -> String {
        CollectionFolder.manifests(Array(store.current().sessions.values), settings: settings).live
    }

    /// The list to give the panel provider: one line per participant with their completion code (to approve),
    /// or why they have none, and what to review before paying (a viewing that breaks `ViewingRules.standard`:
    /// "ad: viewing rule hidden: the page was hidden 14 s of 30 s …"); times in `zone`.
    func approvals(in zone: TimeZone) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = zone
        let now = clock()
        let open = local.withLock { $0.open }
        var lines = [
            "participant,number,group,status,decision,code,started,finished,seconds,measured,reason,review,reference"
        ]
        for session in sessions {
            let started = SessionTime.date(session.started)
            let finished = SessionTime.date(session.finished)
            let shown = displayState(session, open: open[session.participant] != nil, now: now)
            let decision =
                switch session.state {
                case .complete: "approve"
                case .screenedOut: Self.faceless(session, settings.fieldwork) ?? "screened out"
                case .incomplete: Self.faceless(session, settings.fieldwork) ?? "no code (incomplete)"
                case .started: shown == "abandoned" ? "no code (abandoned)" : "no code yet (taking part)"
                }
            let cells: [String] = [
                session.participant, String(session.number), session.group ?? "", shown, decision,
                shownCode(session) ?? "",
                started.map(formatter.string) ?? "", finished.map(formatter.string) ?? "",
                started.flatMap { start in finished.map { String(Int(saturating: $0.timeIntervalSince(start))) } }
                    ?? "",
                String(format: "%.3f", session.coverage(of: settings)), session.reason ?? "", review(session),
                reference(session) ?? "",
            ]
            lines.append(cells.map(ResultTable.quoted).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What of a participant's viewing breaks the default rules (over all their exposures, as the report judges
    /// them), why a stimulus was shown again, and a face that showed no natural movement (`Stillness`: flagged, never
    /// refused, as a very still person exists), per stimulus ("" when nothing).
    func review(_ session: ParticipantSession) -> String {
        settings.stimuli.flatMap { stimulus -> [String] in
            // Issue 95 item 2: the reason of each repeat, so a panel manager sees a replay before paying.
            let repeated = session.attempts.filter { $0.stimulus == stimulus.name }.map {
                "shown again after attempt \($0.number) (\($0.reason))"
            }
            let broken =
                session.exposureFigures(of: stimulus.name, duration: stimulus.duration).map {
                    ViewingRules.standard.broken(by: $0, duration: stimulus.duration)
                } ?? []
            let still =
                session.stimuli[stimulus.name].flatMap { $0.stillnessReview(duration: stimulus.duration) }.map { [$0] }
                ?? []
            return (repeated + broken + still).map { "\(stimulus.name): \($0)" }
        }.joined(separator: "; ")
    }
}
