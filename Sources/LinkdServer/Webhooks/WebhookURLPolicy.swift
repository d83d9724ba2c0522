import Foundation
import LinkdHTTP
import LinkStore

/// Where webhooks may go (SSRF): `https` URLs only, never to a loopback, private, link-local, multicast, reserved or
/// unspecified address — IPv4, IPv6, and IPv4 carried inside IPv6: mapped (`::ffff:10.0.0.1`), translated
/// (`::ffff:0:10.0.0.1`), NAT64 (`64:ff9b::a00:1`) and 6to4 (`2002:a00:1::`) are judged as the IPv4 address they
/// carry, and Teredo (`2001::/32`, whose client address is hidden) is refused whole. With `allowLoopback`
/// (`allowLoopbackWebhooks`, development and tests) plain `http` is allowed to loopback, and loopback addresses are
/// allowed; every other rule stands.
///
/// Two checks: `check(url:)` when an admin gives a URL (its form, and its host when that is an address or a
/// `localhost` name), and `allows(address:)` on the address each delivery actually connects to, whatever the name
/// resolved to then (a name that resolves to a private address at delivery — DNS rebinding — is refused there).
struct WebhookURLPolicy: Sendable {
    /// Whether loopback endpoints (and plain `http` to them) are allowed.
    let allowLoopback: Bool

    /// The longest endpoint URL, in bytes.
    static let maxURLLength = 2048

    /// Networks no webhook is delivered to.
    static let forbidden: [IPNetwork] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
        "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        // IPv6: unspecified and IPv4-compatible (::/96, with ::1 in it), NAT64 local use, discard, documentation,
        // unique local, link-local, site-local, multicast.
        "::/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    ].compactMap(IPNetwork.init)
    /// Loopback networks: refused unless `allowLoopback`.
    static let loopback: [IPNetwork] = ["127.0.0.0/8", "::1/128"].compactMap(IPNetwork.init)

    /// Teredo: an IPv4 client behind a relay, its address obscured in the low bits; no webhook goes there.
    static let teredo = IPNetwork("2001::/32")!

    /// Whether a delivery may connect to `address`.
    func allows(_ address: IPAddress) -> Bool {
        if let carried = Self.carriedIPv4(address) { return allows(carried) }
        if Self.teredo.contains(address) { return false }
        if Self.loopback.contains(where: { $0.contains(address) }) { return allowLoopback }
        // `::1` is in `::/96` too: loopback is decided above.
        return !Self.forbidden.contains { $0.contains(address) }
    }

    /// The IPv4 address an IPv6 address carries to a network that delivers it to that IPv4 host: NAT64's well-known
    /// prefix `64:ff9b::/96`, 6to4's `2002::/16` (the address in bits 16–47), IPv4-translated `::ffff:0:0:0/96`;
    /// nil for any other (IPv4-mapped addresses are IPv4 already).
    static func carriedIPv4(_ address: IPAddress) -> IPAddress? {
        let v4: UInt64
        if address.high == 0x0064_FF9B_0000_0000, address.low >> 32 == 0 {
            v4 = address.low & 0xFFFF_FFFF
        } else if address.high >> 48 == 0x2002 {
            v4 = address.high >> 16 & 0xFFFF_FFFF
        } else if address.high == 0, address.low >> 32 == 0xFFFF_0000 {
            v4 = address.low & 0xFFFF_FFFF
        } else {
            return nil
        }
        return IPAddress(bytes: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + (0..<4).map { UInt8(v4 >> (24 - 8 * UInt64($0)) & 0xFF) })
    }

    /// Checks an endpoint URL an admin gives; the error says what is wrong.
    func check(url text: String) throws(WebhookURLError) {
        guard text.utf8.count <= Self.maxURLLength else {
            throw WebhookURLError("url is longer than \(Self.maxURLLength) bytes")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let rawHost = components.percentEncodedHost, !rawHost.isEmpty
        else { throw WebhookURLError("url must be an absolute URL with a host") }
        guard components.user == nil, components.password == nil else {
            throw WebhookURLError("url must not carry a user name or password")
        }
        guard components.fragment == nil else { throw WebhookURLError("url must not have a fragment") }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw WebhookURLError("url must be ASCII without spaces (write an international name in punycode)")
        }
        var host = rawHost.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        let address = IPAddress(host) ?? Self.legacyIPv4(host)
        let isLoopbackName = host == "localhost" || host.hasSuffix(".localhost")
        let isLoopback = isLoopbackName || address.map { a in Self.loopback.contains { $0.contains(a) } } == true
        switch scheme {
        case "https": break
        case "http" where allowLoopback && isLoopback: break
        case "http":
            throw WebhookURLError(allowLoopback
                ? "url must be https (plain http only to a loopback address)" : "url must be https")
        default: throw WebhookURLError("url must be https")
        }
        if isLoopback && !allowLoopback {
            throw WebhookURLError("url must not point to a loopback address")
        }
        if let address, !allows(address) {
            throw WebhookURLError("url must not point to a private, link-local, multicast, reserved or unspecified address")
        }
    }

    /// An IPv4 address in a form `inet_pton` refuses but resolvers read (`127.1`, `0x7f000001`, `2130706433`,
    /// `0177.0.0.1`), so that such a spelling is judged as the address it is.
    static func legacyIPv4(_ host: String) -> IPAddress? {
        guard host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == "x" }) else { return nil }
        var address = in_addr()
        guard inet_aton(host, &address) != 0 else { return nil }
        let value = UInt32(bigEndian: address.s_addr)
        return IPAddress("\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)")
    }
}

/// A webhook URL refused, and why (the API's 422).
struct WebhookURLError: Error, Sendable {
    /// What is wrong with the URL.
    let message: String
    init(_ message: String) { self.message = message }
}
