import Foundation
import TokenSigning

/// A credentials file for `linkd admin`: `url` and `key`, one `name = value` a line (`#` starts a comment line),
/// private to its owner (mode 0600 or stricter, a regular file, not a symbolic link — else it is refused, naming
/// what is wrong), at most 64 KiB.
///
/// ```
/// # linkd admin credentials
/// url = https://links.example.com
/// key = lkd_…
/// ```
public struct CredentialsFile: Sendable, Equatable {
    /// The daemon's base URL, if the file gives one.
    public var url: String?
    /// The admin API key, if the file gives one.
    public var key: String?

    /// The largest file read.
    public static let maxBytes = 64 << 10
    /// The names a line may set.
    public static let names: Set<String> = ["url", "key"]

    /// Creates credentials.
    public init(url: String?, key: String?) {
        self.url = url
        self.key = key
    }

    /// Reads the file at `path`: a `configuration` failure naming the path when it is loose (group or others may read
    /// it), a link, not a regular file, too large, unreadable or malformed.
    public init(path: String) throws(AdminFailure) {
        let bytes: [UInt8]
        do {
            bytes = try SecretFile.read(path, maxBytes: Self.maxBytes)
        } catch {
            throw AdminFailure(.configuration, "the credentials file: \(error.message)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw AdminFailure(.configuration, "the credentials file \(path) is not UTF-8 text")
        }
        try self.init(text: text, path: path)
    }

    /// Reads credentials from `text` (the file's contents); `path` names it in errors.
    public init(text: String, path: String) throws(AdminFailure) {
        var url: String?, key: String?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw AdminFailure(.configuration, "\(path):\(index + 1): expected 'name = value' (names: url, key)")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard Self.names.contains(name) else {
                throw AdminFailure(.configuration, "\(path):\(index + 1): unknown name '\(name.prefix(40))' (names: url, key)")
            }
            guard !value.isEmpty else { throw AdminFailure(.configuration, "\(path):\(index + 1): \(name) is empty") }
            if name == "url" { url = value } else { key = value }
        }
        self.init(url: url, key: key)
    }

    /// The default path: `$XDG_CONFIG_HOME/linkd/credentials`, else `~/.config/linkd/credentials`; nil without a home.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/linkd/credentials" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.config/linkd/credentials"
    }
}
