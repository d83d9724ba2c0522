/// The one error type of the ACME client: every failure, with what a person can do about it in `message`.
public struct ACMEError: Error, Sendable, CustomStringConvertible {
    /// A machine-readable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case directory, network, timeout, badResponse, problem, challengeFailed, orderFailed
            case invalidArgument, crypto, certificate
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The directory URL answered, but not with an ACME directory (wrong URL, not an ACME server).
        public static let directory = Code(.directory)
        /// No answer from the ACME server: name, connection or TLS failure.
        public static let network = Code(.network)
        /// A request's time limit passed, or the server was still busy after the most polls allowed.
        public static let timeout = Code(.timeout)
        /// The server's answer is not what RFC 8555 says it should be (missing header, bad JSON, foreign URL).
        public static let badResponse = Code(.badResponse)
        /// The server refused a request with an RFC 7807 problem (`problemType`, `problemDetail`).
        public static let problem = Code(.problem)
        /// The CA could not validate a challenge (it did not get the key authorization from the host).
        public static let challengeFailed = Code(.challengeFailed)
        /// The order became invalid after its authorizations (finalization refused, issuance failed).
        public static let orderFailed = Code(.orderFailed)
        /// A caller's argument is unusable (a host name, a PEM key).
        public static let invalidArgument = Code(.invalidArgument)
        /// An OpenSSL call failed.
        public static let crypto = Code(.crypto)
        /// A certificate chain or its key could not be read, or they do not belong together.
        public static let certificate = Code(.certificate)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// The code.
    public let code: Code
    /// What happened and what to do about it (never holds key material).
    public let message: String
    /// The RFC 7807 problem type the server sent (`urn:ietf:params:acme:error:rateLimited`), if any.
    public let problemType: String?
    /// The problem's `detail`, as the server wrote it, if any.
    public let problemDetail: String?
    /// The HTTP status of the answer that failed, if there was one.
    public let status: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, problemType: String? = nil, problemDetail: String? = nil, status: Int? = nil) {
        self.code = code
        self.message = message
        self.problemType = problemType
        self.problemDetail = problemDetail
        self.status = status
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
