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
    // Both strings belong to OpenVINO (static or thread-local): copied, never freed here.
    let name = ov_get_error_info(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
    let detail = ov_get_last_err_msg().map { String(cString: $0) } ?? ""
    let cause = detail.isEmpty ? name : "\(name): \(detail)"
    throw MienError(code, "OpenVINO could not \(action) the model", input: model, cause: cause)
}
