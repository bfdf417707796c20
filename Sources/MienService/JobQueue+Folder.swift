import Foundation
import Mien
import Synchronization

/// The jobs' folder: each job's status written beside its upload and outputs, and read back by the next
/// service on the same folder.
extension JobQueue {
    /// The file a job's status is kept in, beside its upload and outputs.
    static let statusFile = "job.json"

    /// Writes the job's status to its folder (atomically), so a restarted service knows its jobs.
    func record(_ status: JobStatus) {
        let url = folder.appendingPathComponent(status.id).appendingPathComponent(Self.statusFile)
        guard let data = try? JSONLinesWriter.makeEncoder().encode(status) else { return }
        try? data.write(to: url, options: .atomic)
    }

    /// Loads the jobs an earlier run of the service left in the folder.
    ///
    /// Finished ones are served again; unfinished ones (queued, running or interrupted, their upload kept)
    /// are queued again, oldest folder change first, and run from the start. A folder without a status
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
            record(job.status)
        }
        refreshGauge()
        if found.contains(where: { $0.status.state == .queued }) { wake.signal() }
    }
}
