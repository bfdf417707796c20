import Foundation
import Mien

/// Writes errors to standard error as `mien: error: <input>: <message>`.
enum Diagnostics {
    static func report(_ error: any Error) {
        let text = (error as? MienError)?.description ?? "\(error)"
        FileHandle.standardError.write(Data("mien: error: \(text)\n".utf8))
    }
}
