/// The one error type Mien throws.
///
/// `code` says what kind of failure it was (so callers can branch on it), `message` says what went wrong
/// and, where possible, how to fix it, `input` names the file, device or model involved, and `cause` keeps
/// the lower-level message (OpenCV's, the file system's) for diagnostics.
public struct MienError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A category of failure.
    ///
    /// A struct rather than an enum so new codes can be added without breaking
    /// callers that switch over them.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case notFound, unreadable, unsupportedFormat, corruptData, tooLarge, deviceUnavailable
            case modelMissing, modelAltered, modelInvalid, invalidOptions, invalidArgument
            case wrongRunningMode, nonMonotonicTimestamp, truncatedStream, ioFailure, internalFailure, notStarted
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// A file, folder or device that does not exist.
        public static let notFound = Code(.notFound)
        /// An input that exists but cannot be read (permissions, a directory where a file was expected).
        public static let unreadable = Code(.unreadable)
        /// A file that is not an image or video Mien can decode (for example a text file named `.jpg`).
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// Data that claims a known format but does not decode (corrupt, truncated, empty).
        public static let corruptData = Code(.corruptData)
        /// An image over the pixel limit (`ImageLimits.maximumPixels`).
        public static let tooLarge = Code(.tooLarge)
        /// A camera that is missing, busy or not a capture device.
        public static let deviceUnavailable = Code(.deviceUnavailable)
        /// A model file that is not where Mien looks for it.
        public static let modelMissing = Code(.modelMissing)
        /// A model file whose SHA-256 differs from the one Mien was built with.
        public static let modelAltered = Code(.modelAltered)
        /// A model that the inference runtime (OpenVINO) or its own parser cannot read or run.
        public static let modelInvalid = Code(.modelInvalid)
        /// A detector used before `start()` or after `stop()`.
        public static let notStarted = Code(.notStarted)
        /// Options that fail validation.
        public static let invalidOptions = Code(.invalidOptions)
        /// An argument out of range (a frame of the wrong size, an empty buffer).
        public static let invalidArgument = Code(.invalidArgument)
        /// A call that does not fit the running mode the object was created for.
        public static let wrongRunningMode = Code(.wrongRunningMode)
        /// A frame whose timestamp is not after the previous one.
        public static let nonMonotonicTimestamp = Code(.nonMonotonicTimestamp)
        /// A stream that ended before the frames its container announced (frames read so far are kept).
        public static let truncatedStream = Code(.truncatedStream)
        /// A write or read that failed (disk full, unwritable directory).
        public static let ioFailure = Code(.ioFailure)
        /// Anything else; `cause` has the details.
        public static let internalFailure = Code(.internalFailure)

        public var description: String { kind.rawValue }
    }

    /// The category of failure.
    public var code: Code
    /// What went wrong, in words meant for the person running Mien.
    public var message: String
    /// The file, folder, device or model the error is about, when there is one.
    public var input: String?
    /// The lower-level reason (OpenCV's message, errno text), when there is one.
    public var cause: String?

    public init(_ code: Code, _ message: String, input: String? = nil, cause: String? = nil) {
        self.code = code
        self.message = message
        self.input = input
        self.cause = cause
    }

    /// `input: message (cause)`, the form the command-line tool prints.
    public var description: String {
        var text = input.map { "\($0): \(message)" } ?? message
        if let cause, !cause.isEmpty, cause != message { text += " (\(cause))" }
        return text
    }

    /// The same error attributed to `input` (kept when it already names one).
    public func naming(_ input: String) -> MienError {
        var copy = self
        if copy.input == nil { copy.input = input }
        return copy
    }
}
