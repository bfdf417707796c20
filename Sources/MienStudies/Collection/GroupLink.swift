import Foundation
import Mien
import MienVision

/// A link that names its group: `&group=A&gs=SIGNATURE`, the signature an HMAC-SHA256 of the group under the
/// study's key (`Fieldwork.groupLinkKey`, made by `mien study init`), so that whoever opens the study's plain link
/// cannot choose a group and skew the balance (OWASP API Security's "unrestricted access to sensitive business
/// flows"): without a valid signature the server chooses.
package enum GroupLink {
    /// Hex characters of the signature in a link (64 bits: guessing one takes 2^63 tries on average, each a
    /// consent the per-address limit counts).
    static let signatureLength = 16

    /// A new key for a study: 32 random bytes, hex.
    package static func newKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The signature a link for `group` carries (`gs=`).
    package static func signature(group: String, key: String) -> String {
        String(
            hex(hmacSHA256(key: Array(key.utf8), message: Array("mien group link\n\(group)".utf8))).prefix(
                signatureLength))
    }

    /// Whether `signature` is `group`'s under `key` (compared in time independent of where they differ).
    package static func verify(group: String, signature: String, key: String) -> Bool {
        let expected = Array(Self.signature(group: group, key: key).utf8)
        let given = Array(signature.lowercased().utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(UInt8(truncatingIfNeeded: 0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// HMAC-SHA256 (RFC 2104) over the bridge's SHA-256.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let block = 64
        var key = key.count > block ? sha256(key) : key
        key += [UInt8](repeating: 0, count: block - key.count)
        let inner = sha256(key.map { $0 ^ 0x36 } + message)
        return sha256(key.map { $0 ^ 0x5c } + inner)
    }

    private static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        let digest = ModelStore.sha256(Data(bytes))
        var out: [UInt8] = []
        var index = digest.startIndex
        while index < digest.endIndex {
            let next = digest.index(index, offsetBy: 2)
            out.append(UInt8(digest[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
