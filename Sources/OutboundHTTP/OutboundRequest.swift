/// One header line of an outbound request or response.
public struct OutboundHeader: Sendable, Equatable {
    /// The field name as written (compare case-insensitively).
    public var name: String
    /// The field value, without surrounding white space.
    public var value: String

    /// A header `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// The time limits and size cap of one outbound request: every call linkd makes has all three.
public struct OutboundLimits: Sendable, Equatable {
    /// Longest wait for the TCP (and TLS) connection, in milliseconds.
    public var connectTimeoutMilliseconds: Int
    /// Longest time for the whole exchange, in milliseconds.
    public var totalTimeoutMilliseconds: Int
    /// Most response-body bytes read; a longer body aborts the transfer with `OutboundFailure.Kind.tooLarge`.
    public var maxResponseBytes: Int

    /// Limits in milliseconds and bytes.
    public init(connectTimeoutMilliseconds: Int, totalTimeoutMilliseconds: Int, maxResponseBytes: Int) {
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.totalTimeoutMilliseconds = totalTimeoutMilliseconds
        self.maxResponseBytes = maxResponseBytes
    }
}

/// One HTTP request made by linkd (origin previews, webhook deliveries, `linkd admin`). Redirects are never followed:
/// a 3xx comes back with its resolved `Location` in `OutboundResponse.redirectURL`, for the caller to judge.
public struct OutboundRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `PATCH`, `DELETE` or `HEAD`.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// Request headers, sent in order (curl's default `Accept: */*` stays unless one is given).
    public var headers: [OutboundHeader]
    /// The request body; sent with `Content-Length` when not empty (or for `POST`, `PUT`, `PATCH`).
    public var body: [UInt8]
    /// Time limits and the response cap.
    public var limits: OutboundLimits
    /// The URL schemes allowed, as curl spells them (`"http,https"` or `"https"`).
    public var allowedSchemes: String
    /// curl's `CURLOPT_RESOLVE` entries (`host:port:address`): connect to the given address instead of resolving
    /// the name, so a caller that has checked an address connects to exactly that one.
    public var pinnedAddresses: [String]
    /// Asked before every connection with the address curl is about to connect to — 4 bytes for IPv4, 16 for IPv6,
    /// network order — whatever the URL's host resolved to; `false` refuses it (no packet is sent to it) and the
    /// request fails with `OutboundFailure.Kind.addressRefused` unless another address of the name is allowed.
    /// nil: every address. The check against the address actually connected to, which no resolution trick bypasses.
    public var allowsAddress: (@Sendable (_ address: [UInt8]) -> Bool)?
    /// Whether curl may go through the proxy the environment names (`http_proxy`, `https_proxy`, `ALL_PROXY`).
    /// False by default: the daemon's own requests (webhook deliveries, origin previews) connect straight to the
    /// address they checked — through a proxy, the address check would see the proxy and the proxy would resolve
    /// the target. `linkd admin`, an operator's client, keeps the environment's proxy.
    public var usesEnvironmentProxy: Bool
    /// A PEM file of the certificate authorities to trust for this request's TLS instead of the system's
    /// (curl's `CURLOPT_CAINFO`), for a private server such as a test ACME CA; nil: the system's trust store.
    public var caCertificatesFile: String?
    /// Where a 2xx response's body goes as it arrives, instead of into `OutboundResponse.body` (which is then empty):
    /// for downloads of any size. nil: the body is collected, up to `limits.maxResponseBytes`.
    public var bodyStream: OutboundBodyStream?
    /// Where the request body comes from when it is streamed (an upload of any size, read as curl sends it) instead
    /// of `body`: for `POST`, `PUT`, `PATCH`. The transfer is then held to the source's stall limit, not a total one.
    public var bodySource: OutboundBodySource?

    /// A request; `allowedSchemes` is `http,https`, nothing is pinned and every address allowed unless given.
    public init(
        method: String = "GET", url: String, headers: [OutboundHeader] = [], body: [UInt8] = [],
        limits: OutboundLimits, allowedSchemes: String = "http,https", pinnedAddresses: [String] = [],
        allowsAddress: (@Sendable (_ address: [UInt8]) -> Bool)? = nil, usesEnvironmentProxy: Bool = false,
        caCertificatesFile: String? = nil
    ) {
        self.caCertificatesFile = caCertificatesFile
        self.allowsAddress = allowsAddress
        self.usesEnvironmentProxy = usesEnvironmentProxy
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.limits = limits
        self.allowedSchemes = allowedSchemes
        self.pinnedAddresses = pinnedAddresses
    }
}

/// A download's way out: a 2xx body is handed over piece by piece as it arrives, and no cap applies to it; a response
/// of any other status is collected as usual (an error answer, up to `maxResponseBytes`). Without a total time
/// limit (a large download takes as long as it takes), the transfer fails as `timedOut` when it stalls: less than one
/// byte a second for `stallTimeoutMilliseconds` (curl's low-speed limit), or no connection within the connect limit.
public struct OutboundBodyStream: Sendable {
    /// Called on the transfer's thread with each piece of the body, in order; false ends the transfer as failed
    /// (`OutboundFailure.Kind.transport`, "the body could not be written").
    public var write: @Sendable (UnsafeRawBufferPointer) -> Bool
    /// How long the transfer may stall.
    public var stallTimeoutMilliseconds: Int

    /// Creates a stream.
    public init(stallTimeoutMilliseconds: Int, write: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) {
        self.write = write
        self.stallTimeoutMilliseconds = stallTimeoutMilliseconds
    }
}

/// An upload's way in: the request body read piece by piece as curl sends it, so a file of any size is never held
/// whole. Sent with `Content-Length` when `length` is known, chunked otherwise. Without a total time limit, the
/// transfer fails as `timedOut` when it stalls (less than one byte a second for `stallTimeoutMilliseconds`).
public struct OutboundBodySource: Sendable {
    /// The body's length in bytes, when known.
    public var length: Int?
    /// Called on the transfer's thread: fills the buffer with the next bytes and says how many (0: the body is
    /// done); nil aborts the transfer (`OutboundFailure.Kind.transport`, "the body could not be read").
    public var read: @Sendable (UnsafeMutableRawBufferPointer) -> Int?
    /// How long the transfer may stall.
    public var stallTimeoutMilliseconds: Int

    /// Creates a source.
    public init(length: Int?, stallTimeoutMilliseconds: Int, read: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int?) {
        self.length = length
        self.read = read
        self.stallTimeoutMilliseconds = stallTimeoutMilliseconds
    }
}

/// The answer to an `OutboundRequest`, whatever its status.
public struct OutboundResponse: Sendable {
    /// The HTTP status code.
    public let status: Int
    /// The response's header fields (of the last response, when curl saw interim ones).
    public let headers: [OutboundHeader]
    /// The body, at most `OutboundLimits.maxResponseBytes`.
    public let body: [UInt8]
    /// The `Location` of a 3xx, resolved against the request URL.
    public let redirectURL: String?
    /// The address connected to, as text (`127.0.0.1`, `::1`).
    public let remoteAddress: String?

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// Why an outbound request got no answer.
public struct OutboundFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, for callers that act on it.
    public enum Kind: String, Sendable {
        /// The request is not one linkd sends (method, URL, header with a line break).
        case invalidRequest
        /// The host name did not resolve.
        case couldNotResolve
        /// No connection (refused, unreachable, or a scheme not allowed).
        case couldNotConnect
        /// TLS failed (certificate, handshake).
        case tls
        /// A time limit passed.
        case timedOut
        /// The response body was larger than the cap.
        case tooLarge
        /// Every address the host resolved to was refused by the request's `allowsAddress`.
        case addressRefused
        /// Anything else curl reported.
        case transport
    }

    /// The kind of failure.
    public let kind: Kind
    /// curl's message, or linkd's.
    public let message: String

    /// A failure of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}
