import Foundation
import Mien
import MienTesting
import Synchronization
import Testing

/// Runs the built `mien` executable and captures what it prints.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output's lines parsed as JSON objects.
    var jsonLines: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

func runMien(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
    try runProgram(mienPath(), arguments, environment: environment)
}

/// The built `mien` beside the test bundle.
func mienPath() -> String {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("mien").path
}

/// Runs any program and captures what it prints.
func runProgram(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.currentDirectoryURL = SampleMedia.repositoryRoot
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read standard error on its own thread so neither pipe can fill and block the child.
    let errData = Mutex(Data())
    let reader = Thread { errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() } }
    reader.start()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
}

func scratchFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("mien-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The faces of one JSON line (keyed by `faceId`), in ID order.
func facesOf(_ line: [String: Any]) -> [[String: Any]] {
    let faces = line["faces"] as? [String: [String: Any]] ?? [:]
    return faces.keys.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.compactMap { faces[$0] }
}

@Suite("mien detect", .timeLimit(.minutes(10)))
struct DetectCommandTests {
    @Test func sample_printsOneJSONLine_withOneTrackedFace_orientationAndAffdexPoints() throws {
        let result = try runMien(["detect", SampleMedia.astronautPath])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.jsonLines
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line["frameIndex"] as? Int == 0 && line["width"] as? Int == 512 && line["height"] as? Int == 512)
        #expect(line["input"] as? String == SampleMedia.astronautPath)
        #expect(line["faceCount"] == nil, "still images have no face-count stream")
        let faces = facesOf(line)
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        #expect(face["faceId"] as? Int == 0)
        let bounds = try #require(face["faceBounds"] as? [String: Double])
        #expect(abs((bounds["x"] ?? 0) - 178) < 15 && abs((bounds["y"] ?? 0) - 80) < 15)
        let orientation = try #require(face["orientation"] as? [String: Double])
        #expect(abs(orientation["yaw"] ?? 99) < 15 && abs(orientation["roll"] ?? 99) < 15)
        #expect((orientation["interocularDistance"] ?? 0) > 40)
        #expect((face["facePoints"] as? [[String: Double]])?.count == 34)
        #expect(face["mesh"] == nil)
        let withMesh = try runMien(["detect", "--landmarks", SampleMedia.astronautPath]).jsonLines.first
        let mesh = withMesh.map(facesOf)?.first?["mesh"] as? [[String: Double]]
        #expect(mesh?.count == 478 && mesh?.first?.count == 3)
        let points68 = withMesh.map(facesOf)?.first?["points68"] as? [[String: Double]]
        #expect(points68?.count == 68 && points68?.first?.count == 2)
    }

    @Test func detectorOnly_printsBlazeFaceBoxesAndKeypoints() throws {
        let result = try runMien(["detect", "--detector-only", SampleMedia.astronautPath])
        #expect(result.status == 0, "\(result.stderr)")
        let face = try #require(result.jsonLines.first.map(facesOf)?.first)
        let keypoints = try #require(face["keypoints"] as? [String: [String: Double]])
        #expect(face["facePoints"] == nil && face["orientation"] == nil, "the detector alone measures no mesh")
        #expect(
            Set(keypoints.keys) == [
                "rightEye", "leftEye", "noseTip", "mouthCenter", "rightEarTragion", "leftEarTragion",
            ])
    }

    @Test func badInputsAmongGoodOnes_areReported_andTheRestStillProduceResults() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("notes.jpg").path
        try Data("plain text".utf8).write(to: URL(fileURLWithPath: text))
        let empty = folder.appendingPathComponent("empty.png").path
        try Data().write(to: URL(fileURLWithPath: empty))
        let missing = folder.appendingPathComponent("missing.jpg").path
        let result = try runMien(["detect", SampleMedia.astronautPath, text, missing, empty, SampleMedia.astronautPath])
        #expect(result.status == 1)
        #expect(result.jsonLines.count == 2)
        for path in [text, missing, empty] {
            #expect(result.stderr.contains("mien: error: \(path):"), "\(result.stderr)")
        }
    }

    @Test func video_printsALinePerFrame_withTimestamps() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let video = folder.appendingPathComponent("clip.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 10, framesPerSecond: 10).write(to: video)
        let result = try runMien(["detect", video])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.jsonLines
        #expect(lines.compactMap { $0["frameIndex"] as? Int } == Array(0..<10))
        #expect(abs((lines.last?["timestamp"] as? Double ?? 0) - 0.9) < 0.01)
        #expect(lines.allSatisfy { facesOf($0).count == 1 })
        // One face, tracked: the same ID throughout, found once, counted once.
        let ids = lines.compactMap { facesOf($0).first?["faceId"] as? Int }
        #expect(ids == Array(repeating: 0, count: 10))
        #expect(lines.first?["found"] as? [Int] == [0])
        #expect(lines.dropFirst().allSatisfy { ($0["found"] as? [Int])?.isEmpty == true })
        #expect(lines.allSatisfy { ($0["faceCount"] as? [String: Any])?["status"] is String })
    }

    @Test func missingCamera_isAnErrorNamingTheDevice() throws {
        let result = try runMien(["detect", "--camera", "97"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/dev/video97"))
    }

    @Test func alteredModels_exitWithStatus3_namingTheFile() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = SampleMedia.repositoryRoot.appendingPathComponent("Models")
        for name in ["MANIFEST.json", "face_detection_short_range.tflite"] {
            try FileManager.default.copyItem(
                at: models.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let file = folder.appendingPathComponent("face_detection_short_range.tflite")
        var bytes = [UInt8](try Data(contentsOf: file))
        bytes[100] ^= 0xFF
        try Data(bytes).write(to: file)
        let result = try runMien(["detect", SampleMedia.astronautPath], environment: ["MIEN_MODELS": folder.path])
        #expect(result.status == 3)
        #expect(result.stderr.contains(file.path))
        #expect(result.jsonLines.isEmpty)
    }

    @Test func expressionsAndEmojiFlags_addTheirObjectsAndQuality_inAffdexSpelling() throws {
        let result = try runMien(["detect", "--expressions", "--emoji", "--blendshapes", SampleMedia.astronautPath])
        #expect(result.status == 0)
        let face = try #require(result.jsonLines.first.map(facesOf)?.first)
        let expressions = try #require(face["expressions"] as? [String: Any])
        for name in ["smile", "attention", "browFurrow", "lipCornerDepressor", "cheekRaise", "lipStretch", "jawDrop"] {
            #expect(expressions[name] is Double, "\(name)")
        }
        #expect((expressions["left"] as? [String: Any])?["eyeClosure"] is Double)
        #expect(expressions["hasSmile"] as? Bool == true)
        let emoji = try #require(face["emoji"] as? [String: Any])
        #expect(emoji["wink"] is Double && emoji["dominantEmoji"] is String)
        #expect((face["quality"] as? [String: Any])?["brightness"] is Double)
        #expect((face["blendshapes"] as? [String: Any])?.count == 52)
        let plain = try runMien(["detect", SampleMedia.astronautPath])
        let plainFace = try #require(plain.jsonLines.first.map(facesOf)?.first)
        #expect(plainFace["expressions"] == nil && plainFace["emoji"] == nil, "absent unless asked for")
        // One word, one meaning: --expressions is the 21 expressions (Affdex's setDetectAllExpressions), the
        // emoji are their own group.
        let expressionsOnly = try runMien(["detect", "--expressions", SampleMedia.astronautPath])
        let expressionsFace = try #require(expressionsOnly.jsonLines.first.map(facesOf)?.first)
        #expect(expressionsFace["expressions"] != nil && expressionsFace["emoji"] == nil)
        #expect(try runMien(["detect", "--no-baseline", SampleMedia.astronautPath]).status == 64)
    }

    @Test func emotionsAndAppearanceFlags_addTheirObjects() throws {
        let result = try runMien(["detect", "--emotions", "--appearance", SampleMedia.astronautPath])
        #expect(result.status == 0)
        let face = try #require(result.jsonLines.first.map(facesOf)?.first)
        let emotions = try #require(face["emotions"] as? [String: Any])
        for name in ["joy", "anger", "contempt", "disgust", "fear", "sadness", "surprise", "neutral"] {
            #expect(emotions[name] is Double, "\(name)")
        }
        #expect(face["valence"] is Double && face["engagement"] is Double)
        #expect(face["gender"] is String && face["age"] is String && face["glasses"] is Bool)
    }

    @Test func wholePictureFallback_findsTheFaceInATightCrop_unlessTurnedOff() throws {
        // Her face framed as FER-2013 frames faces, which `--face-mode small`'s detector misses.
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("crop.png").path
        try SampleMedia.astronautTightCrop().write(toImageFile: path)
        let plain = try runMien(["detect", "--face-mode", "small", "--no-whole-picture-fallback", path])
        #expect(plain.status == 0 && (plain.jsonLines.first?["faces"] as? [String: Any])?.isEmpty == true)
        let fallback = try runMien(["detect", "--face-mode", "small", "--emotions", path])
        #expect(fallback.status == 0, "\(fallback.stderr)")
        let faces = try #require(fallback.jsonLines.first.map(facesOf))
        #expect(faces.count == 1 && faces.first?["emotions"] is [String: Any])
        // The Detector facade (`mien analyze`) takes the same option.
        let analyzed = try runMien(["analyze", "--face-mode", "small", "--whole-picture-fallback", path])
        #expect(analyzed.status == 0, "\(analyzed.stderr)")
        #expect((analyzed.jsonLines.first?["faces"] as? [String: Any])?.count == 1, "\(analyzed.stdout)")
        let unaided = try runMien(["analyze", "--face-mode", "small", "--no-whole-picture-fallback", path])
        #expect((unaided.jsonLines.first?["faces"] as? [String: Any])?.isEmpty == true, "\(unaided.stdout)")
    }

    @Test func invalidOptions_areUsageErrors() throws {
        #expect(try runMien(["detect", "--max-faces", "0", SampleMedia.astronautPath]).status == 64)
        #expect(try runMien(["detect", "--min-confidence", "2", SampleMedia.astronautPath]).status == 64)
        #expect(try runMien(["detect"]).status == 64)
    }

    @Test func modelsCommand_listsVerifiedModels() throws {
        let result = try runMien(["models"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("ok       blazeface-short-range"))
        #expect(result.stdout.contains("ok       blazeface-full-range"))
    }
}

/// Waits, at most `timeout` seconds, until the temporary JSON Lines file a running `mien analyze` writes
/// for `name` in `folder` (`.<name>.jsonl.partial-<pid>-<n>`) holds `frames` finished lines.
/// - Returns: the temporary file's path, or nil when the time ran out first.
func waitForFinishedFrames(of name: String, in folder: URL, atLeast frames: Int, timeout: TimeInterval = 120)
    -> String?
{
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        if let file = names.first(where: { $0.hasPrefix(".\(name).jsonl.partial-") }) {
            let path = folder.appendingPathComponent(file).path
            // FileHandle, not String(contentsOfFile:), which leaks a buffer on a still-empty file.
            let data = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readToEnd()) ?? nil
            if (data?.filter { $0 == UInt8(ascii: "\n") }.count ?? 0) >= frames { return path }
        }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return nil
}
