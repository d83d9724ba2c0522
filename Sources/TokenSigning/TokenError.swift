/// What an outside caller may learn about a rejected token.
public enum TokenVerdict: String, Sendable, Codable {
    /// Malformed, forged, unknown or retired key, suite mismatch: all the same from outside.
    case unknown
    /// Validly signed but past its expiry.
    case expired
}

/// The one error type of TokenSigning.
public struct TokenError: Error, Sendable, CustomStringConvertible {
    /// A machine-readable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case malformed, unknownKey, badSignature, expired, notYetValid, suiteMismatch, retiredKey
            case invalidArgument, keyNotFound, noActiveKey, storage, insecureFile, sealing, crypto
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Wrong length, bad base64url, unknown suite byte.
        public static let malformed = Code(.malformed)
        /// The key id is not in the keyring for this app.
        public static let unknownKey = Code(.unknownKey)
        /// The tag or signature does not verify.
        public static let badSignature = Code(.badSignature)
        /// The token's expiry is past (beyond the leeway).
        public static let expired = Code(.expired)
        /// The token claims a lifetime longer than its key allows.
        public static let notYetValid = Code(.notYetValid)
        /// The suite byte does not match the key's suite.
        public static let suiteMismatch = Code(.suiteMismatch)
        /// The key is retired or past its verify-until.
        public static let retiredKey = Code(.retiredKey)
        /// A bad argument (app name, ttl, suite).
        public static let invalidArgument = Code(.invalidArgument)
        /// A key management operation named a key that does not exist.
        public static let keyNotFound = Code(.keyNotFound)
        /// No active signing key for this app and suite.
        public static let noActiveKey = Code(.noActiveKey)
        /// Reading or writing the keyring store failed.
        public static let storage = Code(.storage)
        /// A file or directory of secrets is open to other users, a symbolic link, or not a regular file.
        public static let insecureFile = Code(.insecureFile)
        /// Sealing or unsealing private key material failed (wrong master key, corrupt record).
        public static let sealing = Code(.sealing)
        /// An OpenSSL call failed.
        public static let crypto = Code(.crypto)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// The code.
    public let code: Code
    /// A human-readable message (never contains key material).
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The verdict to show an outside caller: only `expired` is distinguishable.
    public var publicVerdict: TokenVerdict { code == .expired ? .expired : .unknown }

    public var description: String { "\(code): \(message)" }
}
