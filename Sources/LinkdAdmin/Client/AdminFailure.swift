/// Why an admin command failed, with the exit code scripts can test (docs/admin-cli.md lists them).
public struct AdminFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of failure: decides the exit code.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The process exit code of this kind.
        public let exitCode: Int32
        /// The kind's name, for messages.
        public let description: String
        private init(_ name: String, _ exitCode: Int32) {
            self.description = name
            self.exitCode = exitCode
        }

        /// The server answered an error of no kind below (400, 409, 422, 500, …): exit 1.
        public static let api = Kind("api", 1)
        /// Bad arguments (EX_USAGE, as the argument parser exits): exit 64.
        public static let usage = Kind("usage", 64)
        /// The thing named does not exist (404): exit 66 (EX_NOINPUT).
        public static let notFound = Kind("notFound", 66)
        /// The output file cannot be made or written (EX_CANTCREAT): exit 73.
        public static let output = Kind("output", 73)
        /// The daemon cannot be reached: connection refused, unknown host, timeout, TLS (EX_UNAVAILABLE): exit 69.
        public static let unreachable = Kind("unreachable", 69)
        /// Try again later: 429 rate limited, 503 store unavailable (EX_TEMPFAIL): exit 75.
        public static let temporary = Kind("temporary", 75)
        /// The key was refused: 401 (no such key, revoked) or 403 (not an admin key) (EX_NOPERM): exit 77.
        public static let refused = Kind("refused", 77)
        /// The connection is not configured: no URL, no key, a credentials file that is loose, unreadable or
        /// malformed (EX_CONFIG): exit 78.
        public static let configuration = Kind("configuration", 78)
    }

    /// The kind (and so the exit code).
    public let kind: Kind
    /// What to tell the user: what is missing, unreachable or refused, and what to do.
    public let message: String

    /// A failure of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `error: message`.
    public var description: String { "error: \(message)" }
}
