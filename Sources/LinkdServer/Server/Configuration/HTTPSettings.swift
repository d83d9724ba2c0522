import LinkdHTTP
import NIOCore

/// The public listener: where it listens, its threads, the fast path, who the proxies are, the JSON body cap.
public struct HTTPSettings: ConfigurationSection {
    /// `host` / `LINKD_HOST`: the address to listen on.
    public var host = "127.0.0.1"
    /// `port` / `LINKD_PORT`: the port (0 picks a free one).
    public var port = 8080
    /// `eventLoopThreads` / `LINKD_EVENT_LOOP_THREADS` (0–256): SwiftNIO event-loop threads; 0 means one per core.
    public var eventLoopThreads = 0
    /// `fastPath`: answer share pages, resolutions and `/healthz` on the event loop when memory has all they need
    /// (same answers; false sends every request through Hummingbird's router).
    public var fastPath = true
    /// `trustedProxies` / `LINKD_TRUSTED_PROXIES` (comma-separated): addresses or CIDR networks of the reverse proxies
    /// whose `Forwarded` / `X-Forwarded-For` name the client (nobody else's are believed).
    public var trustedProxies: [String] = []
    /// `maxBodyBytes`: the request body cap of the JSON endpoints.
    public var maxBodyBytes = 65_536

    /// The embedded defaults.
    public init() {}

    static var keys: [ConfigurationKey<Self>] {
        [
            .string("host", \.host, variable: "LINKD_HOST"), .int("port", \.port, variable: "LINKD_PORT"),
            .int("eventLoopThreads", \.eventLoopThreads, variable: "LINKD_EVENT_LOOP_THREADS"), .bool("fastPath", \.fastPath),
            .strings("trustedProxies", \.trustedProxies, variable: "LINKD_TRUSTED_PROXIES"),
            .int("maxBodyBytes", \.maxBodyBytes),
        ]
    }

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ConfigurationError(message: "port \(port) is out of range 0–65535") }
        guard !host.isEmpty else { throw ConfigurationError(message: "host is empty") }
        guard (0...256).contains(eventLoopThreads) else { throw ConfigurationError(message: "eventLoopThreads must be 0–256 (0: one per core)") }
        if let bad = trustedProxies.first(where: { IPNetwork($0) == nil }) {
            throw ConfigurationError(message: "trustedProxies: '\(bad)' is not an IP address or CIDR network (10.0.0.0/8, 2001:db8::/32)")
        }
        guard maxBodyBytes > 0 else { throw ConfigurationError(message: "maxBodyBytes must be positive") }
    }

    /// The trusted proxies as networks (validated by `validate()`).
    var trustedProxyNetworks: [IPNetwork] { trustedProxies.compactMap(IPNetwork.init) }
}

/// Every connection's time limits and caps (the edge, `EdgeLimits`).
public struct EdgeSettings: ConfigurationSection {
    /// `headTimeoutSeconds` (0.1–60): a request head must come whole within this time of its first byte (else `408`
    /// and the connection is closed).
    public var headTimeoutSeconds = 10.0
    /// `bodyTimeoutSeconds` (0.1–600): a request body must come whole within this time of its head.
    public var bodyTimeoutSeconds = 30.0
    /// `idleTimeoutSeconds` (0.1–3600): a keep-alive connection with no request under way is closed after this.
    public var idleTimeoutSeconds = 75.0
    /// `writeTimeoutSeconds` (0.1–600): a connection whose client takes no response bytes this long is closed.
    public var writeTimeoutSeconds = 30.0
    /// `maxConnections`: connections open at once (past it: `503`, `too_many_connections`).
    public var maxConnections = 10_000
    /// `maxConnectionsPerClient`: connections open at once from one IPv4 address or IPv6 /64 (trusted proxies are not
    /// capped).
    public var maxConnectionsPerClient = 256

    /// The embedded defaults.
    public init() {}

    static var keys: [ConfigurationKey<Self>] {
        [
            .double("headTimeoutSeconds", \.headTimeoutSeconds), .double("bodyTimeoutSeconds", \.bodyTimeoutSeconds),
            .double("idleTimeoutSeconds", \.idleTimeoutSeconds), .double("writeTimeoutSeconds", \.writeTimeoutSeconds),
            .int("maxConnections", \.maxConnections), .int("maxConnectionsPerClient", \.maxConnectionsPerClient),
        ]
    }

    func validate() throws {
        for (name, seconds, range) in [
            ("headTimeoutSeconds", headTimeoutSeconds, 0.1...60.0), ("bodyTimeoutSeconds", bodyTimeoutSeconds, 0.1...600.0),
            ("idleTimeoutSeconds", idleTimeoutSeconds, 0.1...3600.0), ("writeTimeoutSeconds", writeTimeoutSeconds, 0.1...600.0),
        ] where !range.contains(seconds) {
            throw ConfigurationError(message: "\(name) must be \(range.lowerBound)–\(range.upperBound) seconds")
        }
        guard maxConnections >= 1, (1...maxConnections).contains(maxConnectionsPerClient) else {
            throw ConfigurationError(message: "maxConnections must be ≥ 1 and maxConnectionsPerClient 1–maxConnections")
        }
    }

    /// The limits the edge holds every connection to.
    var limits: EdgeLimits {
        EdgeLimits(
            headTimeout: .nanoseconds(Int64(headTimeoutSeconds * 1e9)), bodyTimeout: .nanoseconds(Int64(bodyTimeoutSeconds * 1e9)),
            idleTimeout: .nanoseconds(Int64(idleTimeoutSeconds * 1e9)), writeTimeout: .nanoseconds(Int64(writeTimeoutSeconds * 1e9)),
            maxConnections: maxConnections, maxConnectionsPerClient: maxConnectionsPerClient)
    }
}

/// Per-client budgets: requests on the hot routes, failed authentications.
public struct LimitSettings: ConfigurationSection {
    /// `rateLimitPerSecond`: per client address, on `/v1/resolve*` and `/s/*`; 0 turns it off.
    public var rateLimitPerSecond = 100.0
    /// `rateLimitBurst`: requests a client may make at once before the rate applies.
    public var rateLimitBurst = 200.0
    /// `authFailuresPerMinute`: the refill rate of the per-address bucket of failed authentications (it holds
    /// `APIKeyAuthenticator.failureBurst`, 10); while it is empty, authenticated endpoints answer 429.
    public var authFailuresPerMinute = 10.0

    /// The embedded defaults.
    public init() {}

    static var keys: [ConfigurationKey<Self>] {
        [
            .double("rateLimitPerSecond", \.rateLimitPerSecond), .double("rateLimitBurst", \.rateLimitBurst),
            .double("authFailuresPerMinute", \.authFailuresPerMinute),
        ]
    }

    func validate() throws {
        guard rateLimitPerSecond >= 0, rateLimitBurst >= 1 || rateLimitPerSecond == 0 else {
            throw ConfigurationError(message: "rateLimitPerSecond must be ≥ 0 and rateLimitBurst ≥ 1")
        }
        guard authFailuresPerMinute > 0 else { throw ConfigurationError(message: "authFailuresPerMinute must be positive") }
    }
}
