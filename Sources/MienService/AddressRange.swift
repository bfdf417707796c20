import Foundation
import MienCore

/// A range of IP addresses in CIDR notation (`10.0.0.0/8`, `127.0.0.1`, `fd00::/8`): the reverse proxies whose
/// `X-Forwarded-For` the service believes (`mien serve --trust-proxy`).
struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    /// The network's address, 4 bytes (IPv4) or 16 (IPv6).
    let network: [UInt8]
    /// Leading bits that must match.
    let prefix: Int

    /// - Throws: `MienError` `.invalidOptions` naming the text when it is not an address or a CIDR range.
    init(_ text: String) throws {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let address = parts.first, let bytes = Self.bytes(address) else {
            throw MienError(
                .invalidOptions, "--trust-proxy takes an address or a CIDR range (10.0.0.0/8, fd00::/8), got '\(text)'")
        }
        let bits = bytes.count * 8
        let prefix = parts.count == 2 ? Int(decimal: parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else {
            throw MienError(.invalidOptions, "--trust-proxy '\(text)': the prefix length is 0...\(bits)")
        }
        self.prefix = prefix
        network = Self.masked(bytes, prefix)
    }

    var description: String {
        let family = network.count == 4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: Int(truncatingIfNeeded: INET6_ADDRSTRLEN))
        let shown = network.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        let address = shown == nil ? "?" : String(decoding: text.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        return "\(address)/\(prefix)"
    }

    /// Whether `address` (as a socket or a header gives it) is in the range; never for text that is no address.
    func contains(_ address: String) -> Bool {
        guard var bytes = Self.bytes(address) else { return false }
        // An IPv4 client seen through an IPv6 socket (::ffff:a.b.c.d) is that IPv4 address.
        if network.count == 4, bytes.count == 16, bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] {
            bytes = Array(bytes.suffix(4))
        }
        return bytes.count == network.count && Self.masked(bytes, prefix) == network
    }

    /// The client behind trusted proxies: the peer, or, when the peer is one of `trusted`, the rightmost address of
    /// `X-Forwarded-For` that is not (each proxy appends the address it received from; the ones a client wrote
    /// itself stand to the left, and are never believed over a proxy's).
    static func client(peer: String, forwardedFor: String?, trusted: [AddressRange]) -> String {
        func isTrusted(_ address: String) -> Bool { trusted.contains { $0.contains(address) } }
        guard isTrusted(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() where !isTrusted(hop) {
            // A hop that is no address (garbage, a name) ends the chain: nothing left of it is believed.
            return bytes(hop) == nil ? peer : hop
        }
        return hops.first ?? peer
    }

    /// The source a per-address limit counts `address` under: an IPv4 address (or one seen through an IPv6 socket,
    /// `::ffff:a.b.c.d`) as itself, an IPv6 address by its /64 network (`2001:db8:1:2::/64`), text that is no address
    /// as itself.
    ///
    /// Why /64: one IPv6 subscriber is given a /64 (or more) and picks any of its 2^64 addresses at will, so a limit
    /// per whole IPv6 address limits nothing (issue 94).
    static func limitKey(_ address: String) -> String {
        guard let bytes = bytes(address) else { return address }
        if bytes.count == 4 { return address }
        if bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] {
            return bytes.suffix(4).map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(truncatingIfNeeded: bytes[$0]) << 8 | UInt16(truncatingIfNeeded: bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }

    /// Whether a server bound to `host` can ever see a peer in this range.
    ///
    /// An IPv4 range never reaches a socket
    /// bound to an IPv6 address other than `::` (whose IPv4 peers arrive as `::ffff:a.b.c.d`), and an IPv6 range
    /// (other than IPv4 seen through IPv6) never reaches a socket bound to an IPv4 address. Nil when `host` is a name.
    func reachable(boundTo host: String) -> Bool? {
        let unbracketed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let bound = Self.bytes(unbracketed) else { return nil }
        let mapped =
            network.count == 16 && prefix >= 96
            && network.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
        if bound.count == 4 { return network.count == 4 || mapped }
        return network.count == 16 || bound.allSatisfy { $0 == 0 }
    }

    private static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func masked(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(max(prefix - index * 8, 0), 8)
            return bits == 8 ? byte : byte & ~(0xff >> bits)
        }
    }
}
