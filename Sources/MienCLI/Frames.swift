import ArgumentParser
import Foundation
import Glibc
import Mien
import MienCore

/// `mien frames`: frames in on standard input, one JSON line per frame out: a `Detector` fed with
/// `push(_:)`, the way the Python package's `mien.Detector` (and any program with frames of its own) drives
/// Mien.
///
/// Each frame is a 24-byte little-endian header, `MIEN`, width (u32), height (u32), flags (u32), timestamp
/// in seconds (f64), then width × height × 3 bytes of packed BGR. Flags 1 with width and height 0 is a
/// `reset()`. Results come in frame order as they are ready (frames wait for room in the detector's inbox,
/// none is dropped); a frame refused on arrival (time not advancing) is answered at once with
/// `{"error": {...}, "sequence": k}`, k counting the frames sent from 0, and takes no frame index.
struct Frames: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Analyse raw BGR frames from standard input; print one JSON object per frame on standard output.",
        discussion: """
            Each frame: the 4 bytes MIEN, then little-endian width, height and flags (u32 each) and the timestamp \
            in seconds (f64), then width * height * 3 bytes of packed BGR. Flags 1 with no pixels forgets every \
            face (reset). The end of standard input ends the analysis after the frames sent.
            """)

    @OptionGroup var metrics: MetricArguments

    @Option(help: "Frames analysed per second at most, on the frames' own clock (default: every frame).")
    var rate: Double?

    @Flag(help: "A face that leaves and comes back gets its old ID (dlib's face recognition network).")
    var reidentify = false

    @Flag(help: "The frames are unrelated pictures (not tracked; timestamps are not compared).")
    var stills = false

    @Option(help: "The input's name in results (default: none).")
    var name: String?

    @OptionGroup var detection: DetectionArguments

    /// The header's magic bytes.
    static let magic: [UInt8] = Array("MIEN".utf8)
    /// The largest frame accepted, in pixels (Mien's image limit).
    static let maximumPixels = ImageLimits.maximumPixels

    func validate() throws { _ = try detectorOptions() }

    private func detectorOptions() throws -> DetectorOptions {
        let selected = try metrics.selected()
        do {
            return try DetectorOptions(
                detection: detection.options(), maxProcessRate: rate, metrics: selected,
                reidentification: reidentify ? ReidentificationOptions() : nil)
        } catch let error as MienError {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let models = try CommandModels.load()
        let detector = Detector(
            source: .pushed(name: name, mode: stills ? .image : .video), options: try detectorOptions(),
            models: models)
        let run = try await detector.start(writers: [JSONLinesWriter(stream: Console.output)])
        var sequence = 0
        // Standard input blocks until a frame arrives: each read goes through BlockingWork, off the pool.
        while let (header, pixels) = try await BlockingWork.run({ try Self.readFrame() }) {
            defer { sequence += 1 }
            if header.flags & 1 != 0 {
                run.reset()
                continue
            }
            do {
                let frame = try Frame(
                    width: header.width, height: header.height, pixels: pixels, timestamp: header.timestamp)
                try await run.push(frame)
            } catch {
                // Stopped by a failure of its own (standard output closed): that is the error to report.
                guard run.isOpen else { break }
                let failure = (error as? MienError) ?? MienError(.internalFailure, "\(error)")
                try Console.output(Self.refusal(failure, sequence: sequence))
            }
        }
        if case .failed(let error) = await run.stop() {
            Diagnostics.report(error)
            throw ExitStatus.inputFailed
        }
    }

    /// The answer to a frame refused on arrival.
    static func refusal(_ error: MienError, sequence: Int) throws -> Data {
        var detail: [String: Any] = ["code": error.code.description, "message": error.message]
        if let input = error.input { detail["input"] = input }
        var line = try JSONSerialization.data(
            withJSONObject: ["error": detail, "sequence": sequence], options: [.sortedKeys])
        line.append(UInt8(ascii: "\n"))
        return line
    }

    struct Header {
        var width: Int
        var height: Int
        var flags: UInt32
        var timestamp: Double
    }

    /// The next frame on standard input; nil at its end.
    /// - Throws: `.corruptData` for a header that is not Mien's or an input that ends inside a frame;
    ///   `.tooLarge` past `maximumPixels`.
    static func readFrame() throws -> (Header, [UInt8])? {
        guard let head = try read(24, allowingEnd: true) else { return nil }
        guard Array(head[0..<4]) == magic else {
            throw MienError(.corruptData, "a frame header does not start with MIEN", input: "standard input")
        }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(head[at + $1]) << (8 * UInt32($1)) } }
        let bits = (0..<8).reduce(UInt64(0)) { $0 | UInt64(head[16 + $1]) << (8 * UInt64($1)) }
        let header = Header(
            width: Int(u32(4)), height: Int(u32(8)), flags: u32(12), timestamp: Double(bitPattern: bits))
        let pixels = header.width * header.height
        guard pixels <= maximumPixels else {
            throw MienError(
                .tooLarge, "a frame of \(header.width) x \(header.height) is over \(maximumPixels) pixels",
                input: "standard input")
        }
        return (header, try read(pixels * 3, allowingEnd: false) ?? [])
    }

    /// Exactly `count` bytes of standard input; nil at its end before the first byte when `allowingEnd`.
    private static func read(_ count: Int, allowingEnd: Bool) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(0, buffer.baseAddress.map { $0 + filled }, count - filled)
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                if filled == 0 && allowingEnd { return nil }
                throw MienError(.truncatedStream, "standard input ended inside a frame", input: "standard input")
            }
            filled += got
        }
        return bytes
    }
}
