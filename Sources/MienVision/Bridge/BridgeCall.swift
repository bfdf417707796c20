internal import CMienBridge
import MienCore

/// Calls a bridge function and turns a failing status into a thrown `MienError`.
///
/// - Parameters:
///   - input: the file, device or model the call is about (named in the error).
///   - accept: statuses the caller handles itself (for example end of stream); they are returned.
///   - openFailure: the code a `MIEN_ERR_OPEN` becomes (a video that will not open is corrupt data, a
///     camera that will not open is an unavailable device).
///   - body: the call; it receives the out-parameter for the error message.
func bridgeCall(
    input: String?, openFailure: MienError.Code = .corruptData,
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> mien_status
) throws {
    _ = try bridgeStatus(input: input, openFailure: openFailure, body)
}

/// Like `bridgeCall`, but returns the status when it is `MIEN_OK` or one of `accept`.
func bridgeStatus(
    input: String?, accept: Set<UInt32> = [], openFailure: MienError.Code = .corruptData,
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> mien_status
) throws -> mien_status {
    var message: UnsafeMutablePointer<CChar>? = nil
    let status = body(&message)
    defer { mien_string_free(message) }
    if status == MIEN_OK || accept.contains(status.rawValue) { return status }
    let cause = message.map { String(cString: $0) }
    let (code, text): (MienError.Code, String) =
        switch status {
        case MIEN_ERR_NOT_FOUND: (.notFound, "not found")
        case MIEN_ERR_DECODE: (.corruptData, "could not be decoded")
        case MIEN_ERR_TOO_LARGE: (.tooLarge, "is too large")
        case MIEN_ERR_OPEN: (openFailure, "could not be opened")
        case MIEN_ERR_MODEL: (.modelInvalid, "is not a usable model")
        case MIEN_ERR_IO: (.ioFailure, "could not be read or written")
        case MIEN_ERR_INVALID_ARGUMENT: (.invalidArgument, "was given an invalid argument")
        default: (.internalFailure, "failed inside OpenCV")
        }
    throw MienError(code, cause ?? text, input: input, cause: nil)
}

/// The OpenCV version Mien's bridge was built with, such as "4.6.0".
public var openCVVersion: String { String(cString: mien_opencv_version()) }

/// Sets how many threads OpenCV's loops use (0 or less: OpenCV's default, one per core).
public func setOpenCVThreads(_ count: Int) { mien_set_threads(Int32(clamping: count)) }
