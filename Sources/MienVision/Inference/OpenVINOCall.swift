internal import COpenVINO
import MienCore

/// Calls an OpenVINO C function and turns a failing `ov_status_e` into a thrown `MienError`.
///
/// - Parameters:
///   - model: the model file the call is about (named in the error as its input).
///   - action: what was being done, for the message ("compile", "run", ...).
///   - code: the error code a failure becomes (`.modelInvalid` while reading or compiling a model,
///     `.internalFailure` once it is running).
///   - body: the call.
func openVINOCall(
    model: String, _ action: String, code: MienError.Code = .internalFailure, _ body: () -> ov_status_e
) throws {
    let status = body()
    guard status != OK else { return }
    // The status text is static; the last message is a fresh copy the caller frees (seen under ASan: the
    // header does not say).
    let name = ov_get_error_info(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
    let message = ov_get_last_err_msg()
    defer { ov_free(message) }
    let detail = message.map { String(cString: $0) } ?? ""
    let cause = detail.isEmpty ? name : "\(name): \(detail)"
    throw MienError(code, "OpenVINO could not \(action) the model", input: model, cause: cause)
}
