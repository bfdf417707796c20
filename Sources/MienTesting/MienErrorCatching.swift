public import Mien

/// The `MienError` a throwing expression raises (nil when it does not throw; another error becomes
/// `.internalFailure`), for tests that check error codes.
public func mienError(_ body: () throws -> Void) -> MienError? {
    do {
        try body()
        return nil
    } catch let error as MienError {
        return error
    } catch {
        return MienError(.internalFailure, "unexpected \(error)")
    }
}
