/// The host names a certificate is asked for: DNS names an HTTP-01 challenge can prove (no wildcards, no IP
/// addresses), lowercased, each once, in the order given.
enum HostNames {
    /// `hosts` checked and normalized; `invalidArgument` naming the first unusable one.
    static func normalized(_ hosts: [String]) throws -> [String] {
        guard !hosts.isEmpty else { throw ACMEError(.invalidArgument, "a certificate needs at least one host name") }
        var seen = Set<String>()
        var out: [String] = []
        for host in hosts {
            var name = host.lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            guard isDNSName(name) else {
                throw ACMEError(
                    .invalidArgument,
                    "\(host.debugDescription) is not a host name a certificate can be issued for over HTTP-01 "
                        + "(letters, digits, hyphens and dots; at least two labels; no wildcard or IP address)")
            }
            if seen.insert(name).inserted { out.append(name) }
        }
        return out
    }

    /// True for a DNS name of at least two labels: each 1–63 of `a-z0-9-`, not starting or ending with `-`, 253
    /// bytes at most, and not all digits at the end (an IPv4 address).
    static func isDNSName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else {
                return false
            }
            let allowed = label.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "-")
            }
            guard allowed else { return false }
        }
        let last = labels[labels.count - 1]
        return !last.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
