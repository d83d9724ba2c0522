/// Helpers for the well-known files and previews (used by WebFallback and the server).
extension AppManifest {
    /// Hosts the share path is served on (the share hosts, else every host).
    public var shareHosts: [String] {
        guard let share else { return [] }
        return share.hosts.isEmpty ? hosts : share.hosts
    }

    /// The origin preview URL for a link's params: `origin.baseURL` + `previewPath` with each `:param` replaced by
    /// its percent-encoded value. Nil when there is no origin, or a param is missing, empty, `.` or `..` (a dot
    /// segment would move the request to another path of the origin).
    public func previewURL(params: [String: String]) -> String? {
        guard let origin else { return nil }
        var path: [String] = []
        for segment in origin.previewPath.split(separator: "/", omittingEmptySubsequences: true) {
            if segment.hasPrefix(":") {
                guard let value = params[String(segment.dropFirst())], !value.isEmpty, !DotSegment.matches(value) else { return nil }
                path.append(Self.encodeSegment(value))
            } else {
                path.append(String(segment))
            }
        }
        let base = origin.baseURL.hasSuffix("/") ? String(origin.baseURL.dropLast()) : origin.baseURL
        return base + "/" + path.joined(separator: "/")
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func encodeSegment(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
