#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as 128 bits (IPv4 held as IPv4-mapped IPv6, `::ffff:a.b.c.d`), read by `inet_pton`.
package struct IPAddress: Hashable, Sendable {
    /// The high and low 64 bits, in network order read as big-endian numbers.
    package let high: UInt64
    package let low: UInt64

    /// Reads `text` as an IPv4 (`192.0.2.1`) or IPv6 (`2001:db8::1`) address; nil for anything else (no ports,
    /// brackets or zone ids).
    package init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        let read = String(text).withCString { pointer -> Bool in
            if text.contains(":") {
                return bytes.withUnsafeMutableBytes { inet_pton(AF_INET6, pointer, $0.baseAddress) == 1 }
            }
            var four = [UInt8](repeating: 0, count: 4)
            guard four.withUnsafeMutableBytes({ inet_pton(AF_INET, pointer, $0.baseAddress) == 1 }) else { return false }
            bytes[10] = 0xFF
            bytes[11] = 0xFF
            bytes.replaceSubrange(12..<16, with: four)
            return true
        }
        guard read else { return nil }
        self.init(bytes: bytes)
    }

    /// The address whose 16 bytes (network order) are `bytes`.
    package init(bytes: [UInt8]) {
        high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Whether it is an IPv4 address (IPv4-mapped).
    var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// The key of the client's rate-limit buckets and connection count: an IPv4 address as itself, an IPv6 address
    /// by its /64 prefix (`2001:db8:1:2::/64`) — one subscriber's network, which hands out a whole /64 to each host.
    var clientKey: String {
        if isIPv4 {
            let v4 = UInt32(truncatingIfNeeded: low)
            return "\(v4 >> 24).\(v4 >> 16 & 0xFF).\(v4 >> 8 & 0xFF).\(v4 & 0xFF)"
        }
        let groups = (0..<4).map { String(high >> (48 - 16 * UInt64($0)) & 0xFFFF, radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    /// Whether the first `prefixLength` bits of both addresses agree.
    func sharesPrefix(with other: IPAddress, length prefixLength: Int) -> Bool {
        func mask(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> UInt64(bits)) }
        return (high ^ other.high) & mask(prefixLength) == 0 && (low ^ other.low) & mask(prefixLength - 64) == 0
    }
}

/// A network in CIDR form (`10.0.0.0/8`, `2001:db8::/32`, or one address): the trusted proxies are a list of these.
package struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    let address: IPAddress
    /// Prefix length over the 128-bit form (an IPv4 `/8` is 96 + 8).
    let prefixLength: Int
    /// As written in the configuration.
    package let description: String

    /// Reads `a.b.c.d[/n]` or `ipv6[/n]`; nil when it is neither or the prefix is out of range.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let maxLength = address.isIPv4 ? 32 : 128
        var length = maxLength
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...maxLength).contains(given) else { return nil }
            length = given
        }
        self.address = address
        prefixLength = address.isIPv4 ? 96 + length : length
        description = text
    }

    /// Whether `address` is in this network.
    package func contains(_ address: IPAddress) -> Bool {
        self.address.sharesPrefix(with: address, length: prefixLength)
    }
}
