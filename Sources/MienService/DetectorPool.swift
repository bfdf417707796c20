import Foundation
import Mien
import MienCore

/// Started runs of `Detector`s for unrelated pictures (`/v1/analyze`), kept between requests by their settings.
///
/// Starting a run verifies every model file's checksum (about 19 MB hashed twice) and sets up its stages: tens
/// of milliseconds per request on 2 cores, more than analysing a picture. A run of unrelated pictures carries
/// nothing from one picture to the next but their numbering, which `reset()` clears, so one serves request after
/// request. A picture is decoded and analysed on the run's own threads: a request only awaits, never holding a
/// thread of the cooperative pool. At most `maximumIdle` runs wait per setting and `maximumSettings` settings
/// are kept; the least recently used setting goes first.
final class DetectorPool: Sendable {
    private let models: ModelStore
    private let maximumIdle: Int
    private let maximumSettings: Int
    private let idle = Locked<[(key: String, runs: [Detector.Run])]>([])

    init(models: ModelStore, maximumIdle: Int = 2, maximumSettings: Int = 4) {
        self.models = models
        self.maximumIdle = maximumIdle
        self.maximumSettings = maximumSettings
    }

    /// Decodes and analyses one picture in a pooled (or new) run for `options`.
    /// - Throws: the picture's own error (it cannot be decoded, a stage failed): the run goes on and is kept;
    ///   what starting a run throws (a missing or altered model).
    func analyze(_ picture: EncodedFrame, options: DetectorOptions, key: String) async throws -> DetectorResult {
        let run: Detector.Run
        if let pooled = take(key) {
            run = pooled
        } else {
            run = try await Detector(source: .discreteImages, options: options, models: models).start(writers: [])
        }
        run.reset()
        do {
            let result = try await run.process(picture)
            give(run, key)
            return result
        } catch {
            // One bad picture does not cost the next request a new run; a run that ended is not reused.
            if run.isOpen { give(run, key) } else { run.cancel() }
            throw error
        }
    }

    /// Stops every idle run (the service is shutting down).
    func close() async {
        let runs = idle.withLock { entries in
            defer { entries.removeAll() }
            return entries.flatMap(\.runs)
        }
        for run in runs { await run.stop() }
    }

    private func take(_ key: String) -> Detector.Run? {
        idle.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            var entry = entries.remove(at: index)
            let run = entry.runs.popLast()
            entries.append(entry)  // most recently used last
            return run
        }
    }

    private func give(_ run: Detector.Run, _ key: String) {
        let surplus = idle.withLock { entries -> [Detector.Run] in
            var surplus: [Detector.Run] = []
            if let index = entries.firstIndex(where: { $0.key == key }) {
                var entry = entries.remove(at: index)
                if entry.runs.count < maximumIdle {
                    entry.runs.append(run)
                } else {
                    surplus.append(run)
                }
                entries.append(entry)
            } else {
                entries.append((key, [run]))
            }
            while entries.count > maximumSettings { surplus += entries.removeFirst().runs }
            return surplus
        }
        for run in surplus { run.cancel() }
    }
}
