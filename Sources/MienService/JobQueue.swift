import Foundation
import HTTPTypes
import Mien
import MienCore
import Prometheus

/// The service's batch jobs: uploads kept in a folder of their own (`jobs/<id>/`), analysed one at a time,
/// in order, by the same `Detector` and writers as `mien analyze` (JSON Lines, CSV, summary, HTML report).
///
/// The queue is bounded (`maximumJobs` waiting or running); a job's folder holds its upload, its status
/// (`job.json`) and its outputs only, and is deleted with the job (`DELETE`). A job the service stopped in
/// (SIGTERM) is marked interrupted and keeps its upload; the next service on the same folder goes on with it
/// from where it stopped (its finished frames and analysis snapshot, as `mien analyze --resume`). Job IDs are UUIDs made here; anything else is refused
/// before it reaches the file system, so an ID cannot name a path outside the folder.
final class JobQueue: Sendable {
    let folder: URL
    let models: ModelStore
    /// The program, as the jobs' analysis snapshots record it (`ServiceOptions.generator`).
    let generator: String
    private let maximumJobs: Int
    private let metrics: ServiceMetrics
    let state = Locked(State())
    /// Wakes the queue's task: a job was queued, or the queue resumed or is stopping.
    let wake: AsyncStream<Void>.Continuation

    struct Entry {
        var status: JobStatus
        var options: DetectorOptions
        var upload: URL
        var progress = JobProgress()
        /// The job's run, once started (stopped by `stop()` and `remove(_:)`).
        var run: Detector.Run?
    }

    struct State {
        var jobs: [String: Entry] = [:]
        var order: [String] = []
        /// Jobs whose upload is still arriving: each holds its place in the queue, so uploads that arrive
        /// together cannot pass `maximumJobs` between `reserve` and `submit`.
        var reserved: Set<String> = []
        var paused = false
        var stopping = false
    }

    /// - Throws: `.ioFailure` naming `folder` when it cannot be created.
    init(
        folder: URL, models: ModelStore, maximumJobs: Int, metrics: ServiceMetrics, generator: String = "mien serve"
    ) throws {
        self.folder = folder
        self.generator = generator
        self.models = models
        self.maximumJobs = maximumJobs
        self.metrics = metrics
        let wakes: AsyncStream<Void>
        // One wake waiting is enough: the task runs every queued job each time it wakes.
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw MienError(.ioFailure, "cannot create the jobs folder", input: folder.path, cause: "\(error)")
        }
        resumeEarlierJobs()
        // One task runs the jobs, one at a time. It holds the queue only while it runs jobs, so a released
        // queue ends it (`deinit` ends the wakes); the analysis itself is on the detector's own threads.
        Task { [weak self] in
            for await _ in wakes {
                guard let queue = self, await queue.runWaiting() else { return }
            }
        }
    }

    /// Whether `id` has the shape of a job ID (a lower-case UUID), checked before any path is made from it.
    static func isJobID(_ id: String) -> Bool {
        UUID(uuidString: id) != nil && id == id.lowercased()
    }

    /// A new job's ID and folder.
    /// - Throws: `ServiceRefusal` (503) when `maximumJobs` are waiting or running; `.ioFailure` when the
    ///   folder cannot be made.
    /// The place is held until `submit` or `release`.
    func reserve() async throws -> (id: String, folder: URL) {
        let id = UUID().uuidString.lowercased()
        try state.withLock { state in
            let active = state.jobs.values.filter { [.queued, .running].contains($0.status.state) }.count
            guard active + state.reserved.count < maximumJobs, !state.stopping else {
                throw ServiceRefusal(
                    status: .serviceUnavailable, code: "queueFull",
                    message: "\(maximumJobs) jobs are uploading, waiting or running; try again later")
            }
            state.reserved.insert(id)
        }
        let jobFolder = folder.appendingPathComponent(id)
        do {
            try await BlockingWork.run {
                try FileManager.default.createDirectory(at: jobFolder, withIntermediateDirectories: false)
            }
        } catch {
            await release(id)
            throw MienError(.ioFailure, "cannot create the job's folder", input: jobFolder.path, cause: "\(error)")
        }
        return (id, jobFolder)
    }

    /// Gives back a reserved place whose upload failed, and deletes its folder.
    func release(_ id: String) async {
        state.withLock { _ = $0.reserved.remove(id) }
        await Self.remove(folder.appendingPathComponent(id))
    }

    /// Queues a reserved job whose upload is complete.
    func submit(id: String, input: String, upload: URL, settings: AnalysisSettings, options: DetectorOptions) async {
        let status = JobStatus(
            id: id, state: .queued, input: input, settings: settings, frames: 0, totalFrames: nil, progress: nil,
            error: nil, results: nil)
        state.withLock { state in
            state.reserved.remove(id)
            state.jobs[id] = Entry(status: status, options: options, upload: upload)
            state.order.append(id)
        }
        await record(status)
        refreshGauge()
        wake.yield()
    }

    /// The job's status now, or nil for an unknown ID.
    func status(of id: String) -> JobStatus? {
        state.withLock { state -> JobStatus? in
            guard let entry = state.jobs[id] else { return nil }
            var status = entry.status
            let (frames, total) = entry.progress.counts
            status.frames = frames
            status.totalFrames = total
            if let total, total > 0 { status.progress = min(1, Double(frames) / Double(total)) }
            if status.state == .done { status.progress = 1 }
            return status
        }
    }

    /// The path of a finished job's output, or nil (unknown job, not finished, unknown output).
    func output(_ name: String, of id: String) -> URL? {
        guard let file = Self.outputs[name]?.file,
            state.withLock({ $0.jobs[id]?.status.state }) == .done
        else { return nil }
        return folder.appendingPathComponent(id).appendingPathComponent(file)
    }

    /// Cancels the job if it is waiting or running, then deletes it and its folder; false for an unknown ID.
    func remove(_ id: String) async -> Bool {
        guard Self.isJobID(id) else { return false }
        let (known, run) = state.withLock { state -> (Bool, Detector.Run?) in
            guard var entry = state.jobs[id] else { return (false, nil) }
            if [.queued, .running].contains(entry.status.state) { entry.status.state = .cancelled }
            state.jobs[id] = nil
            state.order.removeAll { $0 == id }
            return (true, entry.run)
        }
        guard known else { return false }
        // Its writers finished before the folder goes, so none writes into a folder being deleted.
        await run?.stop()
        await Self.remove(folder.appendingPathComponent(id))
        refreshGauge()
        return true
    }

    /// Stops taking jobs: the running one is stopped and marked interrupted, the waiting ones too.
    func stop() async {
        let (running, interrupted) = state.withLock { state -> (Detector.Run?, [JobStatus]) in
            state.stopping = true
            var running: Detector.Run?
            var interrupted: [JobStatus] = []
            for id in state.order {
                guard var entry = state.jobs[id], [.queued, .running].contains(entry.status.state) else { continue }
                if entry.status.state == .running { running = entry.run }
                entry.status.state = .interrupted
                entry.status.error = ErrorBody.Detail(
                    code: "interrupted",
                    message: "the service stopped before the job finished; it runs again when the service restarts",
                    input: entry.status.input)
                state.jobs[id] = entry
                interrupted.append(entry.status)
            }
            return (running, interrupted)
        }
        // The running job's files are complete (a resumable stop) before the service goes on shutting down.
        await running?.stop()
        for status in interrupted { await record(status) }
        wake.yield()
        refreshGauge()
    }

    /// While paused, new jobs wait queued and the running one goes on.
    ///
    /// Lets a caller (a test) hold a job in the queue without racing a machine fast enough to finish it
    /// before the next request.
    func pause() { state.withLock { $0.paused = true } }

    /// Ends `pause`: the waiting jobs run in order.
    func resume() {
        state.withLock { $0.paused = false }
        wake.yield()
    }

    deinit { wake.finish() }

    /// Runs the queued jobs in order; false once the queue is stopping.
    private func runWaiting() async -> Bool {
        while let (id, entry) = take() {
            await run(id, entry)
        }
        return !state.withLock { $0.stopping }
    }

    /// The first queued job, marked running.
    private func take() -> (String, Entry)? {
        state.withLock { state -> (String, Entry)? in
            guard !state.stopping, !state.paused,
                let id = state.order.first(where: { state.jobs[$0]?.status.state == .queued }),
                var entry = state.jobs[id]
            else { return nil }
            entry.status.state = .running
            entry.status.error = nil
            state.jobs[id] = entry
            return (id, entry)
        }
    }

    /// Analyses one job to its end and records how it ended.
    private func run(_ id: String, _ entry: Entry) async {
        await record(entry.status)
        var outcome: (JobStatus.State, ErrorBody.Detail?)
        do {
            // Made off the cooperative pool, outside the queue's lock: a resumed job first replays the frames
            // it had finished (reading and writing files).
            let (detector, writers) = try await BlockingWork.run { try self.detector(for: id, entry) }
            // `stop()` or `remove(_:)` may have come meanwhile: then it never starts.
            let current = state.withLock { $0.jobs[id]?.status.state == .running }
            if current {
                let run = try await detector.start(writers: writers)
                // Handed to `stop()` and `remove(_:)`; one that came while it started stops it now.
                let stillCurrent = state.withLock { state in
                    guard state.jobs[id]?.status.state == .running else { return false }
                    state.jobs[id]?.run = run
                    return true
                }
                if !stillCurrent { run.cancel() }
                let end = await run.end()
                switch end {
                case .complete: outcome = (.done, nil)
                case .stopped: outcome = (.interrupted, nil)
                case .failed(let error): outcome = (.failed, ErrorBody(Self.named(error, entry)).error)
                }
            } else {
                outcome = (.interrupted, nil)
            }
        } catch {
            let failure = (error as? MienError) ?? MienError(.internalFailure, "\(error)")
            outcome = (.failed, ErrorBody(Self.named(failure, entry)).error)
        }
        let final = state.withLock { state -> JobStatus? in
            guard var current = state.jobs[id] else { return nil }  // deleted meanwhile
            if current.status.state == .running { current.status.state = outcome.0 }
            if current.status.error == nil { current.status.error = outcome.1 }
            if current.status.state == .done {
                current.status.results = Dictionary(
                    uniqueKeysWithValues: Self.outputs.keys.map { ($0, "/v1/jobs/\(id)/\($0)") })
            }
            current.run = nil
            state.jobs[id] = current
            return current.status
        }
        guard let final else {
            // Deleted while it was starting: `remove(_:)` emptied the folder before this run's writers (made off the
            // pool, before the run was handed over) opened their files in it. Those go too (CI's JobTests found
            // one under load).
            await Self.remove(folder.appendingPathComponent(id))
            return
        }
        await record(final)
        // The upload is kept only for a job that must run again (interrupted); outputs stay until the job is
        // deleted.
        if final.state != .interrupted { await Self.remove(entry.upload) }
        refreshGauge()
    }

    /// `error` naming the upload by the client's name for it rather than by its path on the server.
    private static func named(_ error: MienError, _ entry: Entry) -> MienError {
        var error = error
        if error.input == nil || error.input == entry.upload.path { error.input = entry.status.input }
        // An output of the job is named by its name in the job's URL, not by where the server keeps it.
        let jobFolder = entry.upload.deletingLastPathComponent().path + "/"
        if let input = error.input, input.hasPrefix(jobFolder) {
            error.input = String(input.dropFirst(jobFolder.count))
        }
        error.message = error.message.replacingOccurrences(of: entry.upload.path, with: entry.status.input)
        return error
    }

    func refreshGauge() {
        let active = state.withLock { state in
            state.jobs.values.filter { [.queued, .running].contains($0.status.state) }.count
        }
        metrics.queuedJobs.set(Double(active))
    }
}
