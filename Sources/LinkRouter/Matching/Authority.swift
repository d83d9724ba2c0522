/// The host of a request's authority (`Host`), as the share path and the well-known files look apps up by it.
public enum Authority {
    /// `Host` without its port, lowercased (an IPv6 literal `[…]` as it is, lowercased). Byte-level: it runs for every
    /// share request.
    public static func hostname(_ authority: String) -> String {
        guard authority.utf8.first != UInt8(ascii: "[") else { return authority.lowercased() }
        let bytes = authority.utf8
        let host = Substring(bytes[..<(bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex)])
        let folded = host.utf8.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || $0 >= 0x80 }
        return folded ? host.lowercased() : String(host)
    }
}
