import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where `linkd admin` sends its calls and with which key, and how long it waits.
///
/// Each of URL and key comes from the first that gives it: the flag (`--url`, `--key`), the environment
/// (`LINKD_URL`, `LINKD_ADMIN_KEY`), then the credentials file (`--credentials`, else `LINKD_CREDENTIALS`, else
/// `$XDG_CONFIG_HOME/linkd/credentials` or `~/.config/linkd/credentials` when it exists). A file named by the flag
/// or the variable must exist; every file read must be private (`CredentialsFile`).
public struct AdminConnection: Sendable, Equatable {
    /// The daemon's base URL, without a trailing slash (`http://127.0.0.1:8080`).
    public var baseURL: String
    /// The admin API key (`lkd_…`).
    public var key: String
    /// The longest a call may take, connection included.
    public var timeout: Duration
    /// The longest the connection may take to open.
    public var connectTimeout: Duration
    /// The most response bytes read (a longer answer is an error).
    public var maxResponseBytes: Int

    /// The default limit of a whole call.
    public static let defaultTimeout: Duration = .seconds(15)
    /// The longest total time a user may ask for.
    public static let maxTimeout: Duration = .seconds(300)
    /// The default cap on an answer: a page of 200 links or 1,000 audit entries is far below it.
    public static let defaultMaxResponseBytes = 8 << 20
    /// The longest URL and key taken.
    static let maxURLLength = 2048, maxKeyLength = 256

    /// Creates a connection as given.
    public init(baseURL: String, key: String, timeout: Duration = defaultTimeout, maxResponseBytes: Int = defaultMaxResponseBytes) {
        self.baseURL = baseURL
        self.key = key
        self.timeout = timeout
        self.connectTimeout = min(timeout, .seconds(5))
        self.maxResponseBytes = maxResponseBytes
    }

    /// The connection the flags, the environment and the credentials file give; a `configuration` failure naming
    /// what is missing (and every place it was looked for) or what is wrong.
    /// - Parameters:
    ///   - url: `--url`.
    ///   - key: `--key`.
    ///   - credentials: `--credentials`.
    ///   - timeoutSeconds: `--timeout`.
    ///   - environment: the process environment.
    public static func resolve(
        url: String?, key: String?, credentials: String?, timeoutSeconds: Double?, environment: [String: String]
    ) throws(AdminFailure) -> AdminConnection {
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        var url = nonEmpty(url) ?? nonEmpty(environment["LINKD_URL"])
        var key = nonEmpty(key) ?? nonEmpty(environment["LINKD_ADMIN_KEY"])
        let namedFile = nonEmpty(credentials) ?? nonEmpty(environment["LINKD_CREDENTIALS"])
        let defaultFile = CredentialsFile.defaultPath(environment: environment)
        // A file named by the flag or variable is always read; the default one when it is there and needed.
        var file = namedFile
        if file == nil, url == nil || key == nil, let defaultFile, Self.exists(defaultFile) { file = defaultFile }
        if let file {
            let read = try CredentialsFile(path: file)
            url = url ?? read.url
            key = key ?? read.key
        }
        let places = "the credentials file (\(namedFile ?? defaultFile ?? "none: no HOME"))"
        guard let url else {
            throw AdminFailure(.configuration, "no daemon URL: give --url, LINKD_URL or 'url = …' in \(places)")
        }
        guard let key else {
            throw AdminFailure(.configuration, "no admin API key: give LINKD_ADMIN_KEY, --key or 'key = …' in \(places)")
        }
        let base = try checkedURL(url)
        guard key.utf8.count <= maxKeyLength, key.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
            throw AdminFailure(.configuration, "the admin API key must be one word of at most \(maxKeyLength) ASCII characters (lkd_…)")
        }
        var timeout = defaultTimeout
        if let seconds = timeoutSeconds {
            guard seconds > 0, seconds <= Double(maxTimeout.components.seconds) else {
                throw AdminFailure(.usage, "--timeout must be more than 0 and at most \(maxTimeout.components.seconds) seconds")
            }
            timeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }
        return AdminConnection(baseURL: base, key: key, timeout: timeout)
    }

    /// Whether anything (a symbolic link included) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// `url` without a trailing slash; a `configuration` failure unless it is an http or https URL with a host and
    /// no query, fragment or credentials.
    static func checkedURL(_ url: String) throws(AdminFailure) -> String {
        let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        guard trimmed.utf8.count <= maxURLLength, let parts = URLComponents(string: trimmed),
              let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = parts.host, !host.isEmpty, parts.query == nil, parts.fragment == nil, parts.user == nil,
              parts.password == nil
        else {
            throw AdminFailure(.configuration, "the daemon URL '\(url.prefix(200))' is not an http(s) URL such as http://127.0.0.1:8080")
        }
        return trimmed
    }
}
