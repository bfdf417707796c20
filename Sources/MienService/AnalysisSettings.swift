public import Mien

/// What a client asks the service to measure: the query parameters of `POST /v1/analyze` and the
/// `options` control message of `/v1/live`, with the command line's names.
///
/// Every field is optional; an absent field takes the `Detector`'s default (5 faces, large faces, no
/// metric beyond mesh, pose and tracking, 5 frames per second for live sessions).
public struct AnalysisSettings: Sendable, Equatable, Codable {
    /// Metric groups, the words of every surface (`MetricGroup.words`: `all`, `expressions`, `emoji`,
    /// `emotions`, `appearance`, `gaze`, `none`); none given: no metric beyond mesh, pose and tracking.
    public var metrics: [String]?
    /// Most faces per frame (1...64).
    public var maxFaces: Int?
    /// `large` (near the camera) or `small` (small or distant faces).
    public var faceMode: String?
    /// Detections below this confidence (0...1) are dropped.
    public var minConfidence: Double?
    /// Live sessions: most frames analysed per second (frames in between are reported unprocessed).
    public var rate: Double?
    /// Whether expressions are scored against each face's own baseline (default true).
    public var baseline: Bool?
    /// Whether each face's 478 mesh points are included.
    public var landmarks: Bool?
    /// Whether MediaPipe's 52 blendshapes are included.
    public var blendshapes: Bool?
    /// Videos and live sessions: whether a face that comes back gets its old ID (re-identification, default
    /// false; descriptors stay in the session's memory for 10 minutes and are never sent).
    public var reidentify: Bool?

    /// The JSON keys and query parameter names, one per field.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case metrics, maxFaces, faceMode, minConfidence, rate, baseline, landmarks, blendshapes, reidentify
    }

    /// The parameter names a client may send, in the documented order.
    public static var parameterNames: [String] { CodingKeys.allCases.map(\.rawValue) }

    /// The metric groups `metrics` may name (`MetricGroup.words`).
    public static var metricGroups: [String] { MetricGroup.words }

    public init(
        metrics: [String]? = nil, maxFaces: Int? = nil, faceMode: String? = nil, minConfidence: Double? = nil,
        rate: Double? = nil, baseline: Bool? = nil, landmarks: Bool? = nil, blendshapes: Bool? = nil,
        reidentify: Bool? = nil
    ) {
        self.metrics = metrics
        self.maxFaces = maxFaces
        self.faceMode = faceMode
        self.minConfidence = minConfidence
        self.rate = rate
        self.baseline = baseline
        self.landmarks = landmarks
        self.blendshapes = blendshapes
        self.reidentify = reidentify
    }

    /// Reads query parameters (`metrics=expressions,emotions&maxFaces=2&faceMode=small`).
    ///
    /// Values are read exactly as `/openapi.yaml` declares them, so the document and the server agree on
    /// what is accepted: integers and numbers in JSON's notation (no `+5`, `0x10`, `nan` or `inf`), booleans as
    /// `true` / `false`, metric groups comma-separated with none empty (an empty value: no group).
    /// - Throws: `.invalidArgument` naming an unknown parameter or a value that is not of its type.
    public init(query: [(String, String)]) throws {
        self.init()
        for (name, value) in query {
            switch name {
            case "metrics": metrics = try Self.groups(value)
            case "maxFaces": maxFaces = try Self.parse(value, name, Self.integer)
            case "faceMode": faceMode = value
            case "minConfidence": minConfidence = try Self.parse(value, name, Self.number)
            case "rate": rate = try Self.parse(value, name, Self.number)
            case "baseline": baseline = try Self.parse(value, name, Self.bool)
            case "landmarks": landmarks = try Self.parse(value, name, Self.bool)
            case "blendshapes": blendshapes = try Self.parse(value, name, Self.bool)
            case "reidentify": reidentify = try Self.parse(value, name, Self.bool)
            case "token": continue  // the access token, read by `AccessControl`
            default:
                throw MienError(
                    .invalidArgument,
                    "unknown parameter '\(Self.excerpt(name))' (known: \(Self.parameterNames.joined(separator: ", ")))")
            }
        }
    }

    /// The detector options these settings ask for.
    /// - Throws: `.invalidOptions` for an unknown metric group or face mode, or a value out of range.
    public func detectorOptions() throws -> DetectorOptions {
        let groups = metrics ?? []
        let chosen = groups.isEmpty ? [] : try MetricGroup.metrics(named: groups)
        let mode: FaceMode
        switch faceMode {
        case nil: mode = .large
        case let name?:
            guard let parsed = FaceMode(rawValue: name) else {
                throw MienError(.invalidOptions, "unknown face mode '\(Self.excerpt(name))' (known: large, small)")
            }
            mode = parsed
        }
        let detection = try DetectionOptions(
            faceMode: mode, maximumFaces: maxFaces ?? DetectionOptions.defaultMaximumFaces,
            minimumConfidence: minConfidence ?? DetectionOptions.defaultMinimumConfidence)
        return try DetectorOptions(
            detection: detection, maxProcessRate: rate, metrics: chosen, baseline: baseline ?? true,
            landmarks: landmarks ?? false, blendshapes: blendshapes ?? false,
            reidentification: reidentify == true ? ReidentificationOptions() : nil)
    }

    private static func bool(_ text: String) -> Bool? {
        switch text {
        case "true": true
        case "false": false
        default: nil
        }
    }

    private static func integer(_ text: String) -> Int? {
        text.wholeMatch(of: /-?(0|[1-9][0-9]*)/) == nil ? nil : Int(decimal: text)
    }

    private static func number(_ text: String) -> Double? {
        text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/) == nil ? nil : Double(text)
    }

    /// `expressions,emotions` → the groups; each must be known, none empty.
    private static func groups(_ text: String) throws -> [String] {
        guard !text.isEmpty else { return [] }
        let groups = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for group in groups where !metricGroups.contains(group) {
            throw MienError(
                .invalidOptions,
                "unknown metric group '\(excerpt(group))' in metrics=\(excerpt(text)) (known: \(metricGroups.joined(separator: ", ")))"
            )
        }
        return groups
    }

    private static func parse<T>(_ text: String, _ name: String, _ convert: (String) -> T?) throws -> T {
        guard let value = convert(text) else {
            throw MienError(.invalidArgument, "parameter '\(name)' cannot be '\(excerpt(text))'")
        }
        return value
    }

    /// A client's value as an error message quotes it: at most 64 characters, so a megabyte of bad value
    /// gives a short error, not a megabyte of echo.
    static func excerpt(_ value: String) -> String {
        let limit = 64
        guard value.count > limit else { return value }
        return "\(value.prefix(limit))… (\(value.utf8.count) bytes)"
    }
}
