import Foundation
import Mien

/// One JSON text message the service sends on a live socket.
///
/// By `type`:
/// - `ready`: the session is analysing with `settings` (after opening and after every `options`);
/// - `found` / `lost`: a face appeared (before the result of its first frame) or left (after its last);
/// - `result`: one frame's `DetectorResult` (the command line's schema; `faces` absent when the frame was not
///   processed: left out by the rate cap, or dropped undecoded for a newer frame when frames came faster than
///   they could be analysed), with `latencyMs` from the frame's arrival to this message;
/// - `event`: an episode of a face's metric or a blink started or finished (`episode`: an `EpisodeEvent`),
///   after the `result` of its frame;
/// - `error`: a frame or message was refused (`error`: the `ErrorBody` detail); the session goes on.
struct LiveMessage: Encodable, Sendable {
    var type: String
    var session: String?
    var settings: AnalysisSettings?
    var faceId: Int?
    var frameIndex: Int?
    var result: DetectorResult?
    /// Milliseconds from the frame's arrival at the service to its result being handed to the socket.
    var latencyMs: Double?
    var error: ErrorBody.Detail?
    var episode: EpisodeEvent?

    static func ready(session: String, settings: AnalysisSettings) -> LiveMessage {
        LiveMessage(type: "ready", session: session, settings: settings)
    }
    static func event(_ type: String, faceId: Int, frameIndex: Int) -> LiveMessage {
        LiveMessage(type: type, faceId: faceId, frameIndex: frameIndex)
    }
    static func episode(_ episode: EpisodeEvent, frameIndex: Int) -> LiveMessage {
        LiveMessage(type: "event", faceId: episode.faceId, frameIndex: frameIndex, episode: episode)
    }
    static func result(_ result: DetectorResult, latencyMs: Double?) -> LiveMessage {
        LiveMessage(type: "result", result: result, latencyMs: latencyMs)
    }
    static func failure(_ body: ErrorBody) -> LiveMessage { LiveMessage(type: "error", error: body.error) }

    /// The message as one line of JSON (sorted keys, as every JSON Mien writes).
    func text() -> String {
        guard let data = try? JSONLinesWriter.makeEncoder().encode(self) else {
            return #"{"error":{"code":"internalFailure","message":"a message could not be encoded"},"type":"error"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A control message a client sends on a live socket (JSON text): `{"type": "options", …settings}` replaces
/// the session's detector with one for these settings; `{"type": "reset"}` forgets faces, IDs and
/// baselines (Affdex's `reset`).
enum LiveControl: Sendable, Equatable {
    case options(AnalysisSettings)
    case reset

    private struct Kind: Decodable { var type: String }

    /// - Throws: `.invalidArgument` for text that is not JSON, has no known `type`, or bad settings.
    init(text: String) throws {
        let data = Data(text.utf8)
        let kind: Kind
        do {
            kind = try JSONDecoder().decode(Kind.self, from: data)
        } catch {
            throw MienError(
                .invalidArgument, "a control message is JSON with a \"type\" of \"options\" or \"reset\"",
                input: "control message")
        }
        switch kind.type {
        case "reset": self = .reset
        case "options":
            // Every key must be a setting: a typo must not silently turn the session's settings into defaults.
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw MienError(.invalidArgument, "an options message is a JSON object", input: "control message")
            }
            let unknown = object.keys.filter { $0 != "type" && !AnalysisSettings.parameterNames.contains($0) }.sorted()
            guard unknown.isEmpty else {
                throw MienError(
                    .invalidArgument,
                    "unknown option\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\(AnalysisSettings.excerpt($0))'" }.joined(separator: ", ")) (known: \(AnalysisSettings.parameterNames.joined(separator: ", "))); the session keeps its settings",
                    input: "control message")
            }
            do {
                self = .options(try JSONDecoder().decode(AnalysisSettings.self, from: data))
            } catch {
                throw MienError(
                    .invalidArgument,
                    "the options message's fields do not have their types (\(Self.describe(error))); the session keeps its settings",
                    input: "control message")
            }
        default:
            throw MienError(
                .invalidArgument, "unknown control message type \"\(kind.type)\" (known: options, reset)",
                input: "control message")
        }
    }
}

extension LiveControl {
    /// A decoding error in a sentence: the field and what was wrong, not Swift's whole dump of it.
    fileprivate static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(let type, let context)?:
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' must be \(Self.name(of: type))"
        case .valueNotFound(let type, let context)?:
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' must be \(Self.name(of: type))"
        case .dataCorrupted(let context)?:
            context.debugDescription
        default:
            "not an object of settings"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        case is String.Type: "a string"
        default: "a list of strings"
        }
    }
}

/// A binary message on a live socket: one encoded picture (JPEG or PNG, any format Mien reads) after an
/// 8-byte little-endian IEEE 754 double, the client's timestamp in milliseconds (`performance.now()` in
/// a browser), which must increase from frame to frame.
struct LiveFrameMessage: Sendable {
    /// The client's timestamp, in seconds (the unit of `DetectorResult.timestamp`).
    var timestamp: Double
    var image: [UInt8]

    static let headerBytes = 8
    /// The latest timestamp taken, milliseconds (about 31 years: a page's `performance.now()` never reaches it):
    /// checked where it arrives, as every number from a client is.
    static let maximumMilliseconds = 1e12

    /// - Throws: `.corruptData` when the message is too short or the timestamp is not a finite number.
    init(_ bytes: [UInt8]) throws {
        guard bytes.count > Self.headerBytes else {
            throw MienError(
                .corruptData,
                "a frame message is an 8-byte little-endian timestamp (milliseconds) followed by a JPEG or PNG; got \(bytes.count) bytes",
                input: "live frame")
        }
        var bits: UInt64 = 0
        for index in 0..<Self.headerBytes {
            bits |= UInt64(truncatingIfNeeded: bytes[index]) << (8 * UInt64(truncatingIfNeeded: index))
        }
        let milliseconds = Double(bitPattern: bits)
        guard milliseconds.isFinite, (0...Self.maximumMilliseconds).contains(milliseconds) else {
            throw MienError(
                .corruptData,
                "the frame's timestamp is not a number of milliseconds from 0 to \(Int(saturating: Self.maximumMilliseconds))",
                input: "live frame")
        }
        timestamp = milliseconds / 1000
        image = Array(bytes[Self.headerBytes...])
    }
}

extension LiveMessage {
    /// A number as JSON writes it in a hand-made message: `5`, `7.5`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9
            ? Int(checked: value).map(String.init) ?? String(value) : String(value)
    }
}
