import Foundation
import Mien
import MienCore

/// Started `Detector`s for unrelated pictures (`/v1/analyze`), kept between requests by their settings.
///
/// Creating a detector verifies every model file's checksum (about 19 MB hashed twice) and sets up its
/// stages: tens of milliseconds per request on 2 cores, more than analysing a picture. Discrete-image
/// detectors carry nothing from one picture to the next but their frame numbering, which `reset()` clears,
/// so one can serve request after request. At most `maximumIdle` wait per setting and `maximumSettings`
/// settings are kept; the least recently used setting goes first.
final class DetectorPool: Sendable {
    private let models: ModelStore
    private let maximumIdle: Int
    private let maximumSettings: Int
    private let idle = Locked<[(key: String, detectors: [Detector])]>([])

    init(models: ModelStore, maximumIdle: Int = 2, maximumSettings: Int = 4) {
        self.models = models
        self.maximumIdle = maximumIdle
        self.maximumSettings = maximumSettings
    }

    /// Analyses one picture with a pooled (or new) detector for `options`; blocking, call it off the
    /// cooperative pool.
    func analyze(_ frame: Frame, options: DetectorOptions, key: String) throws -> DetectorResult {
        let detector = try take(key) ?? start(options)
        do {
            detector.reset()
            let result = try detector.process(frame)
            give(detector, key)
            return result
        } catch {
            // A detector that failed is not trusted with the next picture.
            detector.stop()
            throw error
        }
    }

    private func start(_ options: DetectorOptions) throws -> Detector {
        let detector = Detector(source: .discreteImages, options: options, models: models)
        try detector.start()
        return detector
    }

    private func take(_ key: String) throws -> Detector? {
        idle.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            var entry = entries.remove(at: index)
            let detector = entry.detectors.popLast()
            entries.append(entry)  // most recently used last
            return detector
        }
    }

    private func give(_ detector: Detector, _ key: String) {
        let surplus = idle.withLock { entries -> [Detector] in
            var surplus: [Detector] = []
            if let index = entries.firstIndex(where: { $0.key == key }) {
                var entry = entries.remove(at: index)
                if entry.detectors.count < maximumIdle {
                    entry.detectors.append(detector)
                } else {
                    surplus.append(detector)
                }
                entries.append(entry)
            } else {
                entries.append((key, [detector]))
            }
            while entries.count > maximumSettings { surplus += entries.removeFirst().detectors }
            return surplus
        }
        for detector in surplus { detector.stop() }
    }
}
