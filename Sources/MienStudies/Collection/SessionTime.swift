package import Foundation
import MienCore

/// Times and shares as sessions store and say them: one form for every store (folder or database) and every log.
package enum SessionTime {
    // A value style, not a new ISO8601DateFormatter per call: making one costs tens of microseconds, and a consent
    // reads every session's dates (balance, expiry), which made its cost grow with the study (151 ms at 1,000).
    private static let iso8601 = Date.ISO8601FormatStyle()

    /// `date` as sessions store it: `2026-12-03T15:24:33Z` (UTC, whole seconds).
    package static func timestamp(_ date: Date) -> String { iso8601.format(date) }

    /// A stored time, or nil for none or one that does not parse.
    package static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        do {
            return try iso8601.parse(text)
        } catch {
            return nil  // a session written by hand with another form: treated as no time, as before
        }
    }

    /// A share (0...1) as a whole percentage, `40 %`.
    package static func percent(_ share: Double) -> String { "\(Int(saturating: share * 100)) %" }
}
