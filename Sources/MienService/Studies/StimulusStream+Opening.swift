import Foundation
import HTTPTypes
import Mien
import MienCore
import MienStudies

/// How a stimulus (or framing) socket's analysis starts: the participant's files or database upload, the writers,
/// the detector's run.
extension StimulusStream {
    /// Starts a detector's run whose writers are the participant's files (a stimulus) or the page (framing).
    /// - Parameters:
    ///   - attempt: the stimulus attempt's number (from 1), under which a database keeps its results.
    ///   - rate: the frame rate the page is asked for (the study's, or lower when the server is busy).
    ///   - cadenceWindow: the span over which a stimulus socket must deliver a frame every 2 s (`FrameCadence`).
    ///   - onFailure: told once when the results cannot be written (the socket is to be stopped): `.notSaved`, or
    ///     `.erased` when the database refused them because the participant was erased meanwhile.
    /// - Throws: `MienError` when a result file cannot be created or the models cannot be loaded.
    static func open(
        study: CollectedStudy, participant: String, stimulus: CollectionSettings.Stimulus?, attempt: Int, rate: Double,
        outbox: LiveOutbox, models: ModelStore, metrics: ServiceMetrics, cadenceWindow: Duration = .seconds(20),
        onFailure: @escaping @Sendable (CollectedStudy.SocketEnd) -> Void
    ) async throws -> StimulusStream {
        // The framing check measures the gaze too: where the participant looks at their own picture is where their
        // screen is (`FramingJudge.look`), and their stimuli's `onScreen` is judged against it. And the expressions:
        // their resting face, learnt here, is what each stimulus's run starts from (issue 95 item 1).
        let options =
            try stimulus == nil
            ? DetectorOptions(
                detection: DetectionOptions(), metrics: MetricGroup.gaze.metrics.union(MetricGroup.expressions.metrics))
            : CollectionAnalysis.options(
                study.settings.stored, screen: study.session(participant)?.screen ?? .laptop)
        let upload: ResultUpload?
        do {
            upload =
                if let stimulus {
                    try await study.store.results(participant: participant, stimulus: stimulus.name, attempt: attempt)
                } else {
                    nil
                }
        } catch let refused as ResultsRefused where refused.reason == .erased {
            throw ServiceRefusal(
                status: .conflict, code: "sessionEnded", message: "this session has ended (its data was deleted)")
        } catch {
            throw MienError(.ioFailure, "the study's database cannot take results now: \(error)")
        }
        let counter = StimulusCounter(
            duration: stimulus?.duration, span: study.settings.fieldwork.frameSpan,
            outbox: stimulus == nil ? nil : outbox,
            onFailure: { error in onFailure(Self.end(of: error, upload: upload)) })
        counter.asked(rate: rate)
        let framing = stimulus == nil ? FramingWriter(limits: study.settings.framing, outbox: outbox) : nil
        // Creating the participant's folder and files is file work, off the cooperative pool.
        let writers = try await BlockingWork.run { () throws -> [any ResultWriter] in
            var writers: [any ResultWriter]
            if let stimulus {
                var files: [any ResultWriter] = []
                if study.store.keepsFiles {
                    do {
                        try FileManager.default.createDirectory(
                            at: study.folder.participant(participant), withIntermediateDirectories: true)
                    } catch {
                        throw MienError(.ioFailure, "cannot create the participant's folder: \(error)")
                    }
                    files = try study.folder.files(participant: participant, stimulus: stimulus.name).writers(
                        input: stimulus.name, report: nil, generator: "mien serve --studies", keepingCheckpoint: true)
                }
                // The page says it is saving while the end waits for a database that does not answer.
                let kept =
                    upload.map {
                        [
                            DatabaseResultWriter(
                                upload: $0, input: stimulus.name, onWaiting: { outbox.send(#"{"type":"saving"}"#) })
                        ]
                    } ?? []
                writers = CollectionAnalysis.writers(files + kept, stored: study.settings.stored)
            } else {
                writers = [LiveSocketWriter(outbox: outbox, metrics: metrics)] + (framing.map { [$0] } ?? [])
            }
            // Last: it counts a frame as measured once every file holds it.
            writers.append(counter)
            return writers
        }
        let detector = Detector(
            source: .pushed(name: stimulus.map { "\(participant)/\($0.name)" } ?? "framing", mode: .liveStream),
            options: options, models: models)
        var settings = RunSettings.standard
        if stimulus != nil { settings.neutralStart = study.session(participant)?.neutral }
        let run = try await detector.start(writers: writers, settings: settings)
        return StimulusStream(
            study: study, participant: participant, stimulus: stimulus, rate: rate, outbox: outbox, run: run,
            counter: counter, upload: upload, cadence: FrameCadence(window: cadenceWindow), framing: framing)
    }

    /// How a socket whose results could not be written ends: erased when the database refused them for that.
    static func end(of error: MienError, upload: ResultUpload?) -> CollectedStudy.SocketEnd {
        upload?.refusal == .erased ? .erased : .notSaved(error.description)
    }
}
