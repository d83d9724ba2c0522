/// Which `origin.baseURL` a manifest may name: an https URL, or plain http to a loopback host only (a developer's
/// local origin) — the host parsed out of the authority, so `http://localhost.evil.example` or
/// `http://localhost@evil.example` do not pass for `localhost`.
enum OriginBaseURL {
    /// Whether `url` may be an origin base URL: `https://…`, or `http://` with a loopback host (`localhost`, an IPv4
    /// address in 127.0.0.0/8, `[::1]`), an optional numeric port, and no userinfo.
    static func isAllowed(_ url: String) -> Bool {
        if url.hasPrefix("https://") { return true }
        guard url.hasPrefix("http://") else { return false }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return false }
        let host: Substring
        let port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return false }
            port = after.isEmpty ? nil : after.dropFirst()
            guard host == "::1" else { return false }
        } else {
            let colon = authority.firstIndex(of: ":")
            host = authority[..<(colon ?? authority.endIndex)]
            port = colon.map { authority[authority.index(after: $0)...] }
            guard isLoopbackName(host) else { return false }
        }
        if let port {
            guard (1...5).contains(port.count), port.allSatisfy(\.isASCIIDigit), let number = Int(port), number <= 65_535 else {
                return false
            }
        }
        return true
    }

    /// `localhost` (any case) or a dotted-quad IPv4 address in 127.0.0.0/8 (decimal parts, no leading zeros).
    static func isLoopbackName(_ host: Substring) -> Bool {
        if host.lowercased() == "localhost" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), part.count == 1 || part.first != "0",
                  let value = Int(part), value <= 255
            else { return false }
        }
        return parts[0] == "127"
    }
}

private extension Character {
    /// 0–9 only (not other scripts' digits).
    var isASCIIDigit: Bool { isASCII && isNumber }
}
