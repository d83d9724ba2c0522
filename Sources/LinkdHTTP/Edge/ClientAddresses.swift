import NIOCore

/// Who a request comes from, for the per-client rate limits and connection caps: the peer's address, or — when
/// the peer is one of the configured trusted proxies — the address that proxy names in `Forwarded` or
/// `X-Forwarded-For`. Nobody else's forwarding headers are believed.
///
/// The forwarded chain is read from the right (the hop nearest linkd) past every trusted proxy; the first address
/// that is not one is the client. `Forwarded` (RFC 7239, its `for=` parameters) is read when present, else
/// `X-Forwarded-For`. A chain that names no usable address leaves the proxy itself as the client.
package struct ClientAddresses: Sendable {
    /// The proxies whose forwarding headers are believed (`trustedProxies`).
    let trustedProxies: [IPNetwork]

    /// Client keys with `trustedProxies` (their forwarding headers are believed).
    package init(trustedProxies: [IPNetwork]) {
        self.trustedProxies = trustedProxies
    }

    /// The longest forwarding header read (longer ones are ignored: the proxy is the client).
    static let maxForwardedBytes = 1024

    /// The client key of a connection's peer, and whether the peer is a trusted proxy.
    func peer(_ address: SocketAddress?) -> (key: String, isTrustedProxy: Bool) {
        guard let text = address?.ipAddress, let ip = IPAddress(text) else { return ("unknown", false) }
        return (ip.clientKey, isTrusted(ip))
    }

    /// The client key of a peer address, trusted or not: an IPv4 address, an IPv6 /64.
    static func key(of address: SocketAddress?) -> String {
        guard let text = address?.ipAddress else { return "unknown" }
        if case .v4 = address { return text }
        return IPAddress(text)?.clientKey ?? text
    }

    /// Whether `address` is a trusted proxy.
    func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// The client key of a request from `peerKey`: the forwarded client when the peer is a trusted proxy and names
    /// one, else the peer.
    func client(peerKey: String, peerIsTrusted: Bool, forwarded: String?, xForwardedFor: String?) -> String {
        guard peerIsTrusted else { return peerKey }
        let chain: [Substring]
        if let forwarded, forwarded.utf8.count <= Self.maxForwardedBytes {
            chain = Self.forAddresses(forwarded)
        } else if let xForwardedFor, xForwardedFor.utf8.count <= Self.maxForwardedBytes {
            chain = xForwardedFor.split(separator: ",").map(HTTPWhitespace.trimmed)
        } else {
            return peerKey
        }
        var client: IPAddress?
        for hop in chain.reversed() {
            guard let address = IPAddress(hop) else { break }  // `unknown`, an obfuscated name, garbage: stop here
            client = address
            if !isTrusted(address) { break }
        }
        return client?.clientKey ?? peerKey
    }

    /// The addresses of the `for=` parameters of a `Forwarded` value, in order (quotes, brackets and ports removed).
    static func forAddresses(_ value: String) -> [Substring] {
        value.split(separator: ",").compactMap { element -> Substring? in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, HTTPWhitespace.trimmed(parts[0]).lowercased() == "for" else { continue }
                var node = HTTPWhitespace.trimmed(parts[1])
                if node.hasPrefix("\""), node.hasSuffix("\""), node.count >= 2 { node = node.dropFirst().dropLast() }
                if node.hasPrefix("[") {  // [v6]:port
                    guard let close = node.firstIndex(of: "]") else { return "" }
                    return node[node.index(after: node.startIndex)..<close]
                }
                if let colon = node.firstIndex(of: ":"), node.lastIndex(of: ":") == colon { return node[..<colon] }  // v4:port
                return node
            }
            return ""  // an element without `for`: unusable, ends the walk
        }
    }
}
