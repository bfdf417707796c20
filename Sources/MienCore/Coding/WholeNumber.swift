/// Conversions to whole numbers that never trap (issue 94): `Int(x)` on a `Double` traps when `x` is not finite or
/// out of range, and a value that came from a client (a viewing message's 1e19) crashed the server that way.
/// `scripts/integer-audit.py` (in `make lint`) holds the study code and what it reads to these and the standard
/// library's labelled conversions.
extension Int {
    /// The largest magnitude a `Double` holds exactly as a whole number (2^53): beyond it, nothing a person measures.
    public static let exactDoubleLimit = 9_007_199_254_740_992.0

    /// `value` rounded by `rule`; nil when it is not finite or its magnitude is beyond 2^53.
    @inlinable
    public init?(checked value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        let rounded = value.rounded(rule)
        guard rounded.isFinite, abs(rounded) <= Self.exactDoubleLimit else { return nil }
        self.init(rounded)  // integer-audit: in range, checked above
    }

    /// `value` rounded by `rule` and held within ±2^53 (NaN is 0): for sizes and counts derived from a value
    /// already checked where it arrived, where an extreme means "as far as it goes".
    @inlinable
    public init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        guard !value.isNaN else {
            self = 0
            return
        }
        let rounded = Swift.min(Swift.max(value.rounded(rule), -Self.exactDoubleLimit), Self.exactDoubleLimit)
        self.init(rounded)  // integer-audit: within ±2^53 by the line above
    }

    /// The whole number a text writes in decimal (an optional sign, then digits); nil for anything else or one out
    /// of range.
    @inlinable
    public init?(decimal text: some StringProtocol) {
        self.init(text, radix: 10)
    }
}
