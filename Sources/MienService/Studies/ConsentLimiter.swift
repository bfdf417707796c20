import Foundation
import MienCore

/// Consents (and declines) per client address: a burst, then a steady rate (a token bucket per address), so one
/// client cannot fill a study with anonymous consents; past it, HTTP 429 with `Retry-After`.
///
/// The address is the connection's peer, or, when the peer is this machine (a reverse proxy on the same host,
/// which the docs recommend for TLS), the last address of `X-Forwarded-For`, which that proxy appended.
final class ConsentLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }
    private let buckets = Locked<[String: Bucket]>([:])

    /// Takes one consent for `address` under `burst` and `perMinute`.
    /// - Returns: nil when allowed, else the seconds until one will be.
    func take(_ address: String, burst: Int, perMinute: Double) -> Int? {
        let now = ContinuousClock.now
        let rate = perMinute / 60
        return buckets.withLock { buckets -> Int? in
            if buckets.count > 10_000 {
                // Addresses whose bucket has refilled hold nothing worth keeping.
                buckets = buckets.filter { (now - $0.value.updated).seconds * rate + $0.value.tokens < Double(burst) }
            }
            var bucket = buckets[address] ?? Bucket(tokens: Double(burst), updated: now)
            bucket.tokens = min(Double(burst), bucket.tokens + (now - bucket.updated).seconds * rate)
            bucket.updated = now
            defer { buckets[address] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(saturating: (1 - bucket.tokens) / rate, rounding: .up)) }
            bucket.tokens -= 1
            return nil
        }
    }
}
