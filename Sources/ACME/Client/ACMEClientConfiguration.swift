/// Where the ACME client goes and how long it waits.
///
/// - `directoryURL` (String, required): the CA's directory, `https://` (Let's Encrypt:
///   `https://acme-v02.api.letsencrypt.org/directory`). Every request goes to this URL's scheme, host and port;
///   a URL the CA hands out elsewhere is refused as `badResponse`.
/// - `caCertificatesFile` (String?, nil): a PEM file of the authorities to trust for the CA's HTTPS instead of the
///   system's, for a private ACME server (pebble); nil: the system's trust store.
/// - `contactEmail` (String?, nil): the account's `mailto:` contact, for the CA's expiry and policy notices.
/// - `limits` (`ACMEClientConfiguration.Limits`, defaults below).
public struct ACMEClientConfiguration: Sendable {
    /// The time limits, the response cap and the polling bounds.
    ///
    /// - `requestTimeoutMilliseconds` (Int, 30 000): the longest one request may take, connection included
    ///   (connecting alone: at most 10 s of it).
    /// - `maxResponseBytes` (Int, 1 MiB): the most bytes of one response body (a certificate chain is a few KB).
    /// - `maxPolls` (Int, 30): the most times an authorization or an order is fetched while it is being worked on;
    ///   one more is a `timeout`.
    /// - `pollIntervalMilliseconds` (Int, 1 000): the wait between polls when the CA sends no `Retry-After`.
    /// - `maxRetryAfterMilliseconds` (Int, 10 000): the longest wait a `Retry-After` may ask for; longer is cut.
    public struct Limits: Sendable, Equatable {
        /// The longest one request may take, in milliseconds.
        public var requestTimeoutMilliseconds: Int
        /// The most bytes of one response body.
        public var maxResponseBytes: Int
        /// The most polls of one authorization or order.
        public var maxPolls: Int
        /// The wait between polls without `Retry-After`, in milliseconds.
        public var pollIntervalMilliseconds: Int
        /// The longest `Retry-After` wait honoured, in milliseconds.
        public var maxRetryAfterMilliseconds: Int

        /// Limits; each argument defaults as listed on the type.
        public init(
            requestTimeoutMilliseconds: Int = 30_000, maxResponseBytes: Int = 1 << 20, maxPolls: Int = 30,
            pollIntervalMilliseconds: Int = 1_000, maxRetryAfterMilliseconds: Int = 10_000
        ) {
            self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
            self.maxResponseBytes = maxResponseBytes
            self.maxPolls = maxPolls
            self.pollIntervalMilliseconds = pollIntervalMilliseconds
            self.maxRetryAfterMilliseconds = maxRetryAfterMilliseconds
        }
    }

    /// The CA's directory URL.
    public var directoryURL: String
    /// A PEM file of authorities to trust for the CA's HTTPS instead of the system's, or nil.
    public var caCertificatesFile: String?
    /// The account's e-mail contact, or nil.
    public var contactEmail: String?
    /// Time limits, the response cap and polling bounds.
    public var limits: Limits

    /// A configuration; only the directory URL is required.
    public init(directoryURL: String, caCertificatesFile: String? = nil, contactEmail: String? = nil, limits: Limits = Limits()) {
        self.directoryURL = directoryURL
        self.caCertificatesFile = caCertificatesFile
        self.contactEmail = contactEmail
        self.limits = limits
    }
}
