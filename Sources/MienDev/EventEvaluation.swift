import Foundation
import Mien
import MienCore
import MienTesting
import MienVision

/// Events against hand labels: blinks (precision, recall, onset error) found by the whole `Detector` on the
/// labelled development videos, and the shot-cut detector's distances within shots and across cuts.
struct EventEvaluation {
    let sets: EvalSets
    let models: ModelStore

    func run() throws -> [String: Any] {
        var result: [String: Any] = [:]
        if let blinks = try blinks() { result["blinks"] = blinks }
        if let cuts = try shotCuts() { result["shot_cuts"] = cuts }
        return result
    }

    /// Blink precision and recall: a detected blink matches a labelled one when their spans overlap (the
    /// labelled span runs from the first closed frame's time to the end of the last one's interval).
    private func blinks() throws -> [String: Any]? {
        let labels = try BlinkLabels()
        var truePositives = 0
        var falsePositives = 0
        var misses = 0
        var onsetErrors: [Double] = []
        var perVideo: [String: Any] = [:]
        for (video, runs) in labels.videos.sorted(by: { $0.key < $1.key }) {
            let set = String(video.split(separator: "/").first ?? "")
            guard let folder = sets.folder(set) else { continue }
            let path = folder.deletingLastPathComponent().appendingPathComponent(video).path
            let collector = RecordingWriter()
            let detector = Detector(
                source: .file(path: path),
                options: try DetectorOptions(
                    detection: DetectionOptions(maximumFaces: 1), metrics: [.expression(.eyeClosure)]),
                models: models)
            try DevRun.analyse(detector, into: collector)
            let times = Dictionary(
                collector.results.map { ($0.frameIndex, $0.timestamp) }, uniquingKeysWith: { first, _ in first })
            let interval = Self.frameInterval(collector.results)
            let found = (collector.results.flatMap(\.episodes) + collector.closingEpisodes)
                .filter { $0.metric == "blink" && $0.change == .finished }
                .compactMap(\.episode)
            var unmatched = found
            var videoHits = 0
            let blinkRuns = runs.filter { $0.kind == .blink }
            for run in blinkRuns {
                guard let start = times[run.first], let end = times[run.last].map({ $0 + interval }) else { continue }
                if let index = unmatched.firstIndex(where: { $0.onset < end && $0.offset > start }) {
                    onsetErrors.append(unmatched[index].onset - start)
                    unmatched.remove(at: index)
                    videoHits += 1
                } else {
                    misses += 1
                }
            }
            truePositives += videoHits
            falsePositives += unmatched.count
            perVideo[video] = ["labelled": blinkRuns.count, "found": found.count, "matched": videoHits]
            print(
                "blinks \(video): \(blinkRuns.count) labelled, \(found.count) found, \(videoHits) matched"
                    + (unmatched.isEmpty
                        ? "" : "; unmatched at " + unmatched.map { format($0.onset) + " s" }.joined(separator: ", ")))
        }
        guard truePositives + misses > 0 else { return nil }
        let precision = Double(truePositives) / Double(max(1, truePositives + falsePositives))
        let recall = Double(truePositives) / Double(truePositives + misses)
        let meanError = onsetErrors.isEmpty ? 0 : onsetErrors.reduce(0, +) / Double(onsetErrors.count)
        let meanAbsolute = onsetErrors.isEmpty ? 0 : onsetErrors.map(abs).reduce(0, +) / Double(onsetErrors.count)
        let largest = onsetErrors.map(abs).max() ?? 0
        print(
            "blinks: precision \(format(precision)), recall \(format(recall)) (\(truePositives) of "
                + "\(truePositives + misses), \(falsePositives) false); onset error mean \(Int((meanError * 1000).rounded())) ms, "
                + "mean |error| \(Int((meanAbsolute * 1000).rounded())) ms, largest \(Int((largest * 1000).rounded())) ms"
        )
        return [
            "precision": precision.rounded(toPlaces: 3), "recall": recall.rounded(toPlaces: 3),
            "labelled": truePositives + misses, "matched": truePositives, "false_positives": falsePositives,
            "onset_error_ms_mean": (meanError * 1000).rounded(toPlaces: 1),
            "onset_error_ms_mean_abs": (meanAbsolute * 1000).rounded(toPlaces: 1),
            "onset_error_ms_max": (largest * 1000).rounded(toPlaces: 1), "videos": perVideo,
            "options": [
                "on": BlinkOptions.standard.closure.on, "off": BlinkOptions.standard.closure.off,
                "maximum_duration_s": BlinkOptions.standard.maximumDuration,
            ],
        ]
    }

    private static func frameInterval(_ results: [DetectorResult]) -> Double {
        guard results.count > 1, let first = results.first, let last = results.last, last.frameIndex > first.frameIndex
        else { return 0 }
        return (last.timestamp - first.timestamp) / Double(last.frameIndex - first.frameIndex)
    }

    /// Shot-cut distances: every consecutive pair of frames of the development videos, split by the
    /// hand-labelled cuts (`Tests/Fixtures/shot-cuts/cuts.csv`) into pairs within a shot and cuts; cuts made by
    /// joining each video's last frame to every other recording's first; and pictures of different people
    /// taken with the same framing, light and background (yalefaces, one after the other), the hardest cut:
    /// another person at the same place.
    private func shotCuts() throws -> [String: Any]? {
        let labelled = try Self.labelledCuts()
        var within: [Double] = []
        var cuts: [Double] = []
        var lastAndFirst: [(video: String, last: [Float], first: [Float])] = []
        var videos: [String] = []
        for set in ["videos_talking_heads", "pyfeat_test_data"] { videos += sets.videos(in: set) }
        guard !videos.isEmpty else { return nil }
        for path in videos {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let source = try VideoFileSource(path: path)
            var previous: [Float]?
            var first: [Float]?
            while true {
                let frame: Frame
                do {
                    guard let next = try source.nextFrame() else { break }
                    frame = next
                } catch {
                    // A damaged ending (no_face.mp4 is 3 frames short of what its container says): the frames
                    // before it still count.
                    print("shot cuts: \(error); the frames before it are used")
                    break
                }
                let signature = ShotCutDetector.signature(of: frame)
                if let previous {
                    let distance = ShotCutDetector.distance(previous, signature)
                    if labelled.contains(name + "#" + String(frame.index)) {
                        cuts.append(distance)
                    } else {
                        within.append(distance)
                    }
                }
                first = first ?? signature
                previous = signature
            }
            if let first, let previous { lastAndFirst.append((name, previous, first)) }
        }
        var joins: [Double] = []
        for (a, one) in lastAndFirst.enumerated() {
            for (b, other) in lastAndFirst.enumerated() where a != b {
                // Clips of one recording joined are a jump cut within one set-up (the same person at the same
                // place): not counted.
                if Self.oneRecording.contains(one.video) && Self.oneRecording.contains(other.video) { continue }
                joins.append(ShotCutDetector.distance(one.last, other.first))
            }
        }
        var people: [Double] = []
        if let yale = sets.folder("yalefaces") {
            // One picture per subject, the same expression: two people, the same shot set-up.
            let pngs = yale.appendingPathComponent("png")
            let files = try FileManager.default.contentsOfDirectory(atPath: pngs.path)
                .filter { $0.hasSuffix(".normal.png") }.sorted()
            let signatures = try files.map {
                ShotCutDetector.signature(of: try ImageDecoder.decode(file: pngs.appendingPathComponent($0).path))
            }
            for index in signatures.indices.dropFirst() {
                people.append(ShotCutDetector.distance(signatures[index - 1], signatures[index]))
            }
        }
        let threshold = ShotCutDetector.defaultThreshold
        let falseCuts = within.filter { $0 >= threshold }.count
        let allCuts = cuts + joins + people
        let missed = allCuts.filter { $0 < threshold }.count
        func summary(_ values: [Double]) -> [String: Any] {
            let sorted = values.sorted()
            guard let lowest = sorted.first, let highest = sorted.last else { return ["pairs": 0] }
            return [
                "pairs": sorted.count, "min": lowest.rounded(toPlaces: 3),
                "median": sorted[sorted.count / 2].rounded(toPlaces: 3), "max": highest.rounded(toPlaces: 3),
            ]
        }
        let summaries = [
            "within_shots": summary(within), "labelled_cuts": summary(cuts), "video_joins": summary(joins),
            "yalefaces_people": summary(people),
        ]
        for (name, values) in summaries.sorted(by: { $0.key < $1.key }) {
            print(
                "shot cuts, \(name): "
                    + values.sorted(by: { $0.key < $1.key }).map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        print(
            "shot cuts at threshold \(threshold): \(falseCuts) false cuts in \(within.count) frame pairs within shots, "
                + "\(missed) missed of \(allCuts.count) cuts")
        var measured: [String: Any] = ["threshold": threshold, "false_cuts": falseCuts, "missed_cuts": missed]
        for (name, values) in summaries { measured[name] = values }
        return measured
    }

    /// The clips of one recording in pyfeat's test data (one man at one place; `face_noface` and
    /// `noface_face` splice it with a sky).
    private static let oneRecording: Set<String> = ["single_face.mp4", "face_noface.mov", "noface_face.mov"]

    /// `video-file-name#frame` of every labelled cut.
    private static func labelledCuts() throws -> Set<String> {
        let path = SampleMedia.repositoryRoot.appendingPathComponent("Tests/Fixtures/shot-cuts/cuts.csv").path
        return Set(
            try CSVRecords.rows(ofCommented: path).dropFirst().compactMap { cells in
                guard cells.count >= 2 else { return nil }
                return URL(fileURLWithPath: cells[0]).lastPathComponent + "#" + cells[1]
            })
    }

    private func format(_ value: Double) -> String { String(format: "%.3f", value) }
}
