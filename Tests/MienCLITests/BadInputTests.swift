import Foundation
import Mien
import MienTesting
import Testing

/// The bad-input suite: every kind of damaged, odd or missing input gets its own clear error naming it,
/// and the good inputs of the same run still complete.
@Suite("Bad input", .timeLimit(.minutes(10)))
struct BadInputTests {
    /// Bad files made from the sample: name, bytes, and what the error must say.
    struct Case {
        var name: String
        var bytes: [UInt8]
        /// Words the `mien: error: <path>: ...` line must contain; nil = the file may also be read (a
        /// bit-flipped JPEG often still decodes) but then its outputs must be complete.
        var error: String?
    }

    static func regression(_ name: String) -> String {
        SampleMedia.repositoryRoot.appendingPathComponent("Fuzz/regressions/\(name)").path
    }

    /// A case for a fuzzer's regression input (`Fuzz/regressions/<target>/<file>`) named `name`.
    static func regressionCase(_ name: String, _ file: String, error: String) throws -> Case {
        Case(name: name, bytes: try sampleBytes(regression(file)), error: error)
    }

    static func sampleBytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `bytes` with every 97th byte after the first tenth inverted.
    static func flipped(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        for i in stride(from: bytes.count / 10, to: bytes.count, by: 97) { copy[i] ^= 0xFF }
        return copy
    }

    /// An AVI whose headers (main header and stream format) claim 64 x 48 pixels and 100,000 frames while
    /// its stream holds 8 frames of 160 x 120.
    static func lyingAVI(in folder: URL) throws -> [UInt8] {
        let path = folder.appendingPathComponent("honest.avi").path
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 8).write(to: path)
        var bytes = try sampleBytes(path)
        func put(_ value: UInt32, at offset: Int) {
            for k in 0..<4 { bytes[offset + k] = UInt8(value >> (8 * UInt32(k)) & 0xFF) }
        }
        func find(_ tag: String) -> Int? {
            let needle = Array(tag.utf8)
            return (0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == needle }
        }
        if let avih = find("avih") {
            put(100_000, at: avih + 8 + 16)  // dwTotalFrames
            put(64, at: avih + 8 + 32)  // dwWidth
            put(48, at: avih + 8 + 36)  // dwHeight
        }
        if let strf = find("strf") {
            put(64, at: strf + 8 + 4)  // biWidth
            put(48, at: strf + 8 + 8)  // biHeight
        }
        return bytes
    }

    @Test func damagedAndOddFiles_eachGetAClearError_andTheOthersComplete() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = try Self.sampleBytes(SampleMedia.astronautPath)
        let clipPath = folder.appendingPathComponent("clip.mp4").path
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 8).write(to: clipPath)
        let mp4 = try Self.sampleBytes(clipPath)
        let pngPath = folder.appendingPathComponent("sample.png").path
        try ImageDecoder.decode(file: SampleMedia.astronautPath).write(toImageFile: pngPath)
        let png = try Self.sampleBytes(pngPath)
        let cases: [Case] = [
            Case(name: "empty.jpg", bytes: [], error: "empty"),
            Case(name: "empty.png", bytes: [], error: "empty"),
            Case(name: "empty.mp4", bytes: [], error: "empty"),
            Case(name: "half.jpg", bytes: Array(jpeg.prefix(jpeg.count / 2)), error: "truncated"),
            Case(name: "half.png", bytes: Array(png.prefix(png.count / 2)), error: "truncated"),
            Case(name: "half.mp4", bytes: Array(mp4.prefix(mp4.count / 2)), error: "could not open"),
            Case(name: "flipped.jpg", bytes: Self.flipped(jpeg), error: nil),
            Case(name: "flipped.png", bytes: Self.flipped(png), error: nil),
            Case(name: "flipped.mp4", bytes: Self.flipped(mp4), error: nil),
            Case(name: "lying.avi", bytes: try Self.lyingAVI(in: folder), error: nil),
            Case(name: "huge.png", bytes: TinyPNG.headerOnly(width: 20_000, height: 20_000), error: "pixels"),
            Case(name: "text.jpg", bytes: Array("not a picture\n".utf8), error: "not an image"),
            // Found by the fuzzers: a raw MPEG-4 stream that crashed OpenCV's FFmpeg reader, and data with a
            // DICOM marker that made OpenCV's GDCM decoder abort.
            try Self.regressionCase(
                "raw.m4v", "video_open/opencv46-ffmpeg-retrieve-overread.bin", error: "not a video container"),
            try Self.regressionCase(
                "short.ts", "video_open/opencv46-mjpeg-in-short-ts-overread.bin", error: "not a video container"),
            try Self.regressionCase("dicm.jpg", "image_decode/gdcm-abort-dicm-at-128.bin", error: "not an image"),
            // An MJPEG AVI whose damaged JPEG frames have other sizes than its header: OpenCV's FFmpeg path
            // read past its frame buffer; the bridge's own FFmpeg decoder reads the one good frame.
            try Self.regressionCase(
                "resized.avi", "video_open/opencv46-mjpeg-avi-frame-size-overread.bin", error: "damaged"),
            // A JPEG whose 63527 x 16424 frame header hides behind a zero-length APP0 and stray bytes.
            try Self.regressionCase(
                "sof.jpg", "image_decode/jpeg-sof-behind-zero-length-app0.bin", error: "over the limit"),
        ]
        var inputs: [String] = []
        for item in cases {
            let path = folder.appendingPathComponent(item.name).path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(item.bytes)))
            inputs.append(path)
        }
        let missing = folder.appendingPathComponent("missing.jpg").path
        let output = folder.appendingPathComponent("out").path
        let result = try runMien(["analyze", SampleMedia.astronautPath] + inputs + [missing, "--output", output])
        #expect(result.status == 1, "some inputs failed: exit 1")
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("mien: error: ") }
        for (item, path) in zip(cases, inputs) {
            let line = errors.first { $0.hasPrefix("mien: error: \(path)") }
            let outputs = ["jsonl", "csv", "summary.json"].map { "\(output)/\(item.name).\($0)" }
            let complete = outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) }
            if let expected = item.error {
                #expect(line?.lowercased().contains(expected) == true, "\(item.name): \(line ?? "no error")")
            } else {
                #expect(line != nil || complete, "\(item.name): an error or complete outputs")
            }
        }
        #expect(errors.contains { $0.hasPrefix("mien: error: \(missing)") && $0.contains("no such file") })
        #expect(FileManager.default.fileExists(atPath: "\(output)/astronaut.jpg.csv"), "the good input completed")
        // The lying AVI is read by what its stream holds, not what its headers claim.
        let lying = try String(contentsOfFile: "\(output)/lying.avi.jsonl", encoding: .utf8)
        #expect(lying.split(separator: "\n").count == 8)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "no temporary files: \(leftovers)")
        // No raw library line on stderr for a truncated file ("libpng error", "moov atom not found", "[mjpeg]
        // overread"): FFmpeg's reason is inside Mien's own line. (libjpeg still prints its warning for a JPEG
        // damaged in the middle, as flipped.jpg is: docs/reliability.md.)
        let foreign = result.stderr.split(separator: "\n").filter { line in
            ["libpng", "moov atom", "overread", "Invalid data found"].contains { line.contains($0) }
                && !line.hasPrefix("mien: error: ")
        }
        #expect(foreign.isEmpty, "library lines on stderr: \(foreign.prefix(5))")
        #expect(
            errors.contains { $0.contains("half.mp4") && $0.contains("(FFmpeg: ") }, "FFmpeg's reason in Mien's line")
    }

    @Test func truncatedVideo_isNeverResumedAsComplete_andItsSummarySaysHowItEnded() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Motion JPEG in AVI cut in half: the first frames decode, then the stream ends early.
        let whole = folder.appendingPathComponent("whole.avi").path
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 40).write(to: whole)
        let bytes = try Self.sampleBytes(whole)
        let half = folder.appendingPathComponent("half.avi").path
        #expect(FileManager.default.createFile(atPath: half, contents: Data(bytes.prefix(bytes.count / 2))))
        let output = folder.appendingPathComponent("out").path
        let first = try runMien(["analyze", half, "--output", output, "--metrics", "none"])
        #expect(first.status == 1, "\(first.stderr)")
        let summaryPath = "\(output)/half.avi.summary.json"
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath)))
        let fields = try #require(summary as? [String: Any])
        #expect(fields["ended"] as? String == "failed")
        #expect((fields["error"] as? String)?.contains("half.avi") == true, "\(fields["error"] ?? "no error")")
        let resumed = try runMien(["analyze", half, "--output", output, "--metrics", "none", "--resume"])
        #expect(resumed.status == 1, "a resumed run must not hide the lost frames: \(resumed.stderr)")
        #expect(!resumed.stderr.contains("skipped"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("did not finish it (failed)"), "\(resumed.stderr)")
        // A whole input is skipped by --resume, as before.
        let done = try runMien(["analyze", whole, "--output", output, "--metrics", "none"])
        #expect(done.status == 0, "\(done.stderr)")
        let again = try runMien(["analyze", whole, "--output", output, "--metrics", "none", "--resume"])
        #expect(again.status == 0 && again.stderr.contains("outputs complete, skipped"), "\(again.stderr)")
    }

    @Test func folderRows_nameTheirPicture_andWhatWasSkippedIsReported() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pictures = folder.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let jpeg = try Self.sampleBytes(SampleMedia.astronautPath)
        for (name, bytes) in [("a.jpg", jpeg), ("b-broken.jpg", Array(jpeg.prefix(300))), ("c.jpg", jpeg)] {
            #expect(
                FileManager.default.createFile(
                    atPath: pictures.appendingPathComponent(name).path, contents: Data(bytes)))
        }
        // GIF89a, 1 x 1: read as a video on its own, so a folder of pictures skips it, and says so.
        let gif: [UInt8] =
            Array("GIF89a".utf8) + [
                1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B,
            ]
        #expect(
            FileManager.default.createFile(atPath: pictures.appendingPathComponent("d.gif").path, contents: Data(gif)))
        try FileManager.default.createDirectory(
            at: pictures.appendingPathComponent("e.jpg"), withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("out").path
        let result = try runMien(["analyze", pictures.path, "--output", output, "--metrics", "none"])
        #expect(result.status == 1, "a picture could not be read: \(result.stderr)")
        #expect(result.stderr.contains("skipped d.gif: a video"), "\(result.stderr)")
        #expect(result.stderr.contains("skipped e.jpg: a folder"), "\(result.stderr)")
        let lines = try String(contentsOfFile: "\(output)/pictures.jsonl", encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.compactMap { $0["file"] as? String } == ["a.jpg", "c.jpg"], "every line names its picture")
        let rows = try String(contentsOfFile: "\(output)/pictures.csv", encoding: .utf8).split(separator: "\n")
        #expect(rows.first?.hasSuffix(",file") == true)
        #expect(
            rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).last } == [
                "a.jpg", "c.jpg",
            ])
        let summary =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: "\(output)/pictures.summary.json"))) as? [String: Any]
        let skipped = (summary?["skipped"] as? [[String: Any]])?.compactMap { $0["file"] as? String }
        #expect(skipped == ["d.gif", "e.jpg"])
        let unreadable = (summary?["unreadable"] as? [[String: Any]])?.compactMap { $0["file"] as? String }
        #expect(unreadable == ["b-broken.jpg"])
        // A folder with no picture is an error, not a run of 0 frames.
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try runMien(["detect", empty.path])
        #expect(none.status != 0 && none.stderr.contains("has no pictures"), "\(none.stderr)")
    }

    @Test func greyDeepAlphaAndOnePixelPictures_areReadAsColour() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sample = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        let (w, h) = (sample.width, sample.height)
        func bgr(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let i = y * sample.stride + x * 3
            return (Int(sample.pixels[i]), Int(sample.pixels[i + 1]), Int(sample.pixels[i + 2]))
        }
        var grey: [Int] = []
        var deep: [Int] = []
        var alpha: [Int] = []
        for y in 0..<h {
            for x in 0..<w {
                let (b, g, r) = bgr(x, y)
                grey.append((r * 299 + g * 587 + b * 114) / 1000)
                deep += [r * 257, g * 257, b * 257]
                alpha += [r, g, b, 255 - (x * 128 / w)]
            }
        }
        let pictures: [(String, [UInt8])] = [
            ("grey.png", TinyPNG.encode(width: w, height: h, colourType: .grey, samples: grey)),
            ("deep.png", TinyPNG.encode(width: w, height: h, colourType: .rgb, bitDepth: 16, samples: deep)),
            ("alpha.png", TinyPNG.encode(width: w, height: h, colourType: .rgba, samples: alpha)),
            ("one.png", TinyPNG.encode(width: 1, height: 1, colourType: .rgb, samples: [200, 150, 100])),
        ]
        var paths: [String] = []
        for (name, bytes) in pictures {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let result = try runMien(["analyze"] + paths + ["--metrics", "expressions"])
        #expect(result.status == 0, "\(result.stderr)")
        var faces: [String: Int] = [:]
        for line in result.jsonLines {
            let name = URL(fileURLWithPath: line["input"] as? String ?? "").lastPathComponent
            faces[name] = (line["faces"] as? [String: Any])?.count
        }
        #expect(faces == ["grey.png": 1, "deep.png": 1, "alpha.png": 1, "one.png": 0], "\(faces)")
    }

    @Test func folderWhereAFileIsExpected_andFileWhereAFolderIs_areUsageErrors() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("page.html")
        try FileManager.default.createDirectory(at: page, withIntermediateDirectories: true)
        let report = try runMien(["analyze", SampleMedia.astronautPath, "--report", page.path])
        #expect(report.status == 64 && report.stderr.contains("is a folder"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: page.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        let file = folder.appendingPathComponent("file").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let output = try runMien(["analyze", SampleMedia.astronautPath, "--output", file])
        #expect(output.status == 64 && output.stderr.contains("is a file"))
        let notADirectory = try runMien(["analyze", SampleMedia.astronautPath, "--output", "/proc/mien-no-such"])
        #expect(notADirectory.status == 1 && notADirectory.stderr.contains("cannot create an output file"))
    }

    @Test(
        .enabled(
            if: geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "root reads every file: needs setpriv (util-linux) to run the tool as nobody"))
    func unreadableFile_isAPermissionError_namingIt() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let locked = folder.appendingPathComponent("locked.jpg").path
        try FileManager.default.copyItem(atPath: SampleMedia.astronautPath, toPath: locked)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        // Root reads anything: run the tool as `nobody` then (setpriv, util-linux).
        let mien = mienPath()
        let models = SampleMedia.repositoryRoot.appendingPathComponent("Models").path
        let arguments = ["analyze", locked, SampleMedia.astronautPath, "--metrics", "none"]
        let result: CommandResult
        if geteuid() == 0 {
            result = try runProgram(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", mien] + arguments,
                environment: ["MIEN_MODELS": models])
        } else {
            result = try runMien(arguments)
        }
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("mien: error: \(locked):") && result.stderr.contains("permission"),
            "\(result.stderr)")
        #expect(result.jsonLines.count == 1, "the readable picture still gives its line")
    }

    @Test(.enabled(if: BadInputTests.canMountTmpfs, "needs to mount a small tmpfs (root)"))
    func fullDisk_isAClearError_andNoTruncatedFileIsPresentedAsComplete() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = folder.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        // A 48 KiB file system: the clip's JSON Lines do not fit, the photo's do.
        let mount = try runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=48k", "tmpfs", disk.path])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? runProgram("/bin/umount", [disk.path]) }
        let clip = folder.appendingPathComponent("clip.mp4").path
        try SampleMedia.astronautClip(width: 160, height: 120, frameCount: 30).write(to: clip)
        let result = try runMien(["analyze", clip, SampleMedia.astronautPath, "--output", disk.path])
        #expect(result.status == 1)
        // The clip's first file to meet the full disk: one of its outputs or its snapshot (written every few seconds
        // of the run, so first when the machine is slow).
        #expect(
            (result.stderr.contains("mien: error: \(disk.path)/clip.mp4.")
                || result.stderr.contains("mien: error: \(disk.path)/.clip.mp4.snapshot:"))
                && result.stderr.contains("cannot write output (No space left on device)"), "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: disk.path).sorted()
        #expect(
            files == [
                "astronaut.jpg.csv", "astronaut.jpg.events.csv", "astronaut.jpg.jsonl", "astronaut.jpg.summary.json",
            ],
            "\(files)")
    }

    /// Whether this process may mount a tmpfs (root, outside a restricted container): tried once on a
    /// scratch folder.
    static let canMountTmpfs: Bool = {
        guard geteuid() == 0, let folder = try? scratchFolder() else { return false }
        defer { try? FileManager.default.removeItem(at: folder) }
        guard let mount = try? runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=4k", "tmpfs", folder.path]),
            mount.status == 0
        else { return false }
        _ = try? runProgram("/bin/umount", [folder.path])
        return true
    }()

    @Test func fullStandardOutput_isAClearError_notACrash() throws {
        // Needs no mount: /dev/full refuses every write with ENOSPC.
        let result = try runProgram(
            "/bin/sh",
            ["-c", "exec \"$0\" analyze \"$1\" --metrics none > /dev/full", mienPath(), SampleMedia.astronautPath])
        #expect(
            result.status == 1 && result.stderr.contains("mien: error: standard output: cannot write"),
            "\(result.stderr)")
    }

    @Test func missingTruncatedAndAlteredModels_stopTheRun_namingTheFile() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = SampleMedia.repositoryRoot.appendingPathComponent("Models")
        let mesh = "face_landmarks_detector.onnx"
        for damage in ["missing", "truncated", "altered"] {
            let models = folder.appendingPathComponent(damage)
            try FileManager.default.copyItem(at: source, to: models)
            let file = models.appendingPathComponent(mesh)
            var bytes = [UInt8](try Data(contentsOf: file))
            switch damage {
            case "missing": try FileManager.default.removeItem(at: file)
            case "truncated": try Data(bytes.prefix(bytes.count / 3)).write(to: file)
            default:
                bytes[bytes.count / 2] ^= 0x20
                try Data(bytes).write(to: file)
            }
            let result = try runMien(
                ["analyze", SampleMedia.astronautPath, SampleMedia.astronautPath],
                environment: ["MIEN_MODELS": models.path])
            #expect(result.status == 3, "\(damage): \(result.stderr)")
            #expect(result.stderr.contains(file.path), "\(damage): \(result.stderr)")
            #expect(result.jsonLines.isEmpty)
        }
    }

    @Test func killedRun_resumesAfterItsLastFrame_withNoFrameLostOrDuplicated() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("long.mp4").path
        try SampleMedia.astronautClip(width: 320, height: 240, frameCount: 240).write(to: clip)
        let output = folder.appendingPathComponent("out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: mienPath())
        process.arguments = ["analyze", clip, "--output", output.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for 40 finished frames in the temporary JSON Lines file, then SIGKILL (no chance to clean up).
        let partial = waitForFinishedFrames(of: "long.mp4", in: output, atLeast: 40)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(partial != nil, "the run got 40 frames in")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("long.mp4.jsonl").path))

        let resumed = try runMien(["analyze", clip, "--output", output.path, "--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming after frame"), "\(resumed.stderr)")
        let lines = try String(contentsOfFile: output.appendingPathComponent("long.mp4.jsonl").path, encoding: .utf8)
            .split(separator: "\n").compactMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        #expect(lines.compactMap { $0["frameIndex"] as? Int } == Array(0..<240), "every frame exactly once, in order")
        let rows = try String(contentsOfFile: output.appendingPathComponent("long.mp4.csv").path, encoding: .utf8)
            .split(separator: "\n")
        #expect(rows.count == 241, "a header and one row per frame (one face each)")
        let summary =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: output.appendingPathComponent("long.mp4.summary.json"))) as? [String: Any]
        #expect(summary?["frames"] as? Int == 240)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
