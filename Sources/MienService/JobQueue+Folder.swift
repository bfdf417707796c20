import Foundation
import Logging
import Mien
import MienCore

/// The jobs' folder: each job's outputs and its status, written beside its upload, and read back by the next
/// service on the same folder.
extension JobQueue {
    /// The output files a finished job serves, by the name in its URL.
    static let outputs: [String: (file: String, type: String)] = [
        "results.jsonl": ("results.jsonl", "application/x-ndjson"),
        "results.csv": ("results.csv", "text/csv; charset=utf-8"),
        "events.csv": ("events.csv", "text/csv; charset=utf-8"),
        "summary.json": ("summary.json", "application/json"),
        "report.html": ("report.html", "text/html; charset=utf-8"),
    ]

    /// The detector of a job and the writers of its run; a job an earlier service did not finish goes on where
    /// that one stopped (`ResumeCheckpoint`): after the frames its results file holds, from the analysis
    /// snapshot beside them when one agrees.
    /// - Throws: `.ioFailure` when an output file cannot be created: the job fails with it, rather than
    ///   ending `done` with links to files that were never written.
    func detector(for id: String, _ entry: Entry) throws -> sending (Detector, [any ResultWriter]) {
        let jobFolder = folder.appendingPathComponent(id)
        func path(_ name: String) -> String { jobFolder.appendingPathComponent(name).path }
        let files = OutputFiles(
            jsonl: path("results.jsonl"), csv: path("results.csv"), events: path("events.csv"),
            summary: path("summary.json"),
            page: path("report.html"))
        let jsonl = path("results.jsonl")
        // A run killed (kill -9, a crash) left temporary files; one a SIGTERM stopped completed its files.
        let checkpoint =
            ResumeCheckpoint.load(jsonlPath: jsonl, outputs: files.all)
            ?? (Self.stoppedEarly(summary: path("summary.json")) ? ResumeCheckpoint.load(committed: jsonl) : nil)
        var settings = RunSettings.standard
        settings.snapshotInterval = Self.snapshotInterval
        let snapshot = SnapshotFile(
            path: SnapshotFile.path(besideJSONLines: jsonl),
            identity: .of(
                input: entry.upload.path, generator: generator, settings: entry.options.settings(run: settings)))
        if checkpoint == nil { removeLeftovers(of: files, job: id) }
        var writers: [any ResultWriter] = [entry.progress]
        writers += try files.writers(input: entry.status.input, report: nil, generator: "mien serve") + [snapshot]
        if let checkpoint {
            do {
                try checkpoint.resume(into: writers, snapshot: snapshot, settings: &settings) { message in
                    Logger(label: "mien.serve.jobs").warning("job \(id): \(message)")
                }
            } catch {
                let failure = error as? MienError ?? MienError(.ioFailure, "\(error)")
                for writer in writers { writer.fail(failure) }
                throw failure
            }
        }
        // Opened under the client's name for it, so results and errors never show the server's paths.
        let upload = entry.upload.path
        let detector = Detector(
            source: .frames(name: entry.status.input, open: { try InputSource.open(path: upload) }),
            options: entry.options, settings: settings, models: models)
        return (detector, writers)
    }

    /// Seconds between a job's analysis snapshots.
    static let snapshotInterval = 1.0

    /// Whether a job's summary says its run was stopped before the end (a SIGTERM to the service).
    private static func stoppedEarly(summary path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return false }
        return object["ended"] as? String == "stopped"
    }

    /// Deletes the temporary files a run the service did not see to its end left, when nothing resumes from them.
    private func removeLeftovers(of files: OutputFiles, job id: String) {
        for output in files.all {
            for leftover in AtomicFile.leftovers(of: output) {
                do {
                    try FileManager.default.removeItem(atPath: leftover)
                } catch {
                    // The job still runs (its outputs get new temporary files), but the operator should know.
                    Logger(label: "mien.serve.jobs").warning(
                        "could not remove \(leftover), left by an earlier run of job \(id): \(error)")
                }
            }
        }
    }

    /// The file a job's status is kept in, beside its upload and outputs.
    static let statusFile = "job.json"

    /// Writes the job's status to its folder (atomically), so a restarted service knows its jobs.
    ///
    /// A failure does not stop the job (its state is still served from memory), but it is logged: a
    /// restarted service would not know the job.
    func record(_ status: JobStatus) async {
        await BlockingWork.run { self.recordNow(status) }
    }

    /// `record` on the calling thread: for the queue's initializer, before any task runs.
    func recordNow(_ status: JobStatus) {
        let url = folder.appendingPathComponent(status.id).appendingPathComponent(Self.statusFile)
        do {
            try JSONLinesWriter.makeEncoder().encode(status).write(to: url, options: .atomic)
        } catch {
            Logger(label: "mien.serve.jobs").warning(
                "could not record job \(status.id)'s status in \(url.path): \(error); a restart will not know it")
        }
    }

    /// Loads the jobs an earlier run of the service left in the folder.
    ///
    /// Finished ones are served again; unfinished ones (queued, running or interrupted, their upload kept)
    /// are queued again, oldest folder change first, and go on where they stopped (`detector(for:_:)`). A folder without a status
    /// (an upload cut short) is removed.
    func resumeEarlierJobs() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var found: [(status: JobStatus, upload: URL, created: Date)] = []
        for name in names where Self.isJobID(name) {
            let jobFolder = folder.appendingPathComponent(name)
            let upload = jobFolder.appendingPathComponent("upload")
            guard let data = try? Data(contentsOf: jobFolder.appendingPathComponent(Self.statusFile)),
                var status = try? JSONDecoder().decode(JobStatus.self, from: data), status.id == name
            else {
                try? FileManager.default.removeItem(at: jobFolder)
                continue
            }
            if [.queued, .running, .interrupted].contains(status.state) {
                guard FileManager.default.fileExists(atPath: upload.path) else {
                    try? FileManager.default.removeItem(at: jobFolder)
                    continue
                }
                status.state = .queued
                status.error = nil
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: jobFolder.path)
            found.append((status, upload, attributes?[.modificationDate] as? Date ?? .distantPast))
        }
        for job in found.sorted(by: { $0.created < $1.created }) {
            guard let options = try? job.status.settings.detectorOptions() else { continue }
            state.withLock { state in
                state.jobs[job.status.id] = Entry(status: job.status, options: options, upload: job.upload)
                state.order.append(job.status.id)
            }
            recordNow(job.status)
        }
        refreshGauge()
        if found.contains(where: { $0.status.state == .queued }) { wake.yield() }
    }

    /// Deletes a job's folder or upload, off the cooperative pool; one already gone is no failure, any other is
    /// logged (a folder left behind keeps taking the disk).
    static func remove(_ url: URL) async {
        let failure = await BlockingWork.run { () -> String? in
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            do {
                try FileManager.default.removeItem(at: url)
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure {
            Logger(label: "mien.serve.jobs").error("\(url.lastPathComponent) cannot be deleted: \(failure)")
        }
    }
}
