package import NIOCore
import Synchronization

/// The time limits and caps every connection is held to (`ServerConfiguration`: `headTimeoutSeconds`,
/// `bodyTimeoutSeconds`, `idleTimeoutSeconds`, `writeTimeoutSeconds`, `maxConnections`, `maxConnectionsPerClient`).
package struct EdgeLimits: Sendable, Equatable {
    /// A request head must come whole within this time of its first byte (else `408` and close).
    package var headTimeout: TimeAmount
    /// A request body must come whole within this time of its head.
    package var bodyTimeout: TimeAmount
    /// A keep-alive connection with no request under way is closed after this long.
    package var idleTimeout: TimeAmount
    /// A connection whose socket takes no bytes for this long (a client that does not read) is closed.
    package var writeTimeout: TimeAmount
    /// Connections open at once, in all.
    package var maxConnections: Int
    /// Connections open at once from one client (an IPv4 address, an IPv6 /64); a trusted proxy is not capped.
    package var maxConnectionsPerClient: Int

    /// Limits with the defaults above, any of them given.
    package init(
        headTimeout: TimeAmount = .seconds(10), bodyTimeout: TimeAmount = .seconds(30), idleTimeout: TimeAmount = .seconds(75),
        writeTimeout: TimeAmount = .seconds(30), maxConnections: Int = 10_000, maxConnectionsPerClient: Int = 256
    ) {
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
    }

    /// The longest request head NIO's decoder reads (the fast path's scanner reads up to 16 KiB; a longer head
    /// goes to the decoder, which refuses one over this).
    package static let maxHeadBytes = 32 * 1024
}

/// Why a connection was closed by linkd (the `reason` label of `linkd_connections_closed_total`).
package enum ConnectionExpiry: String, CaseIterable, Sendable {
    case headTimeout = "head_timeout"
    case bodyTimeout = "body_timeout"
    case requestTimeout = "request_timeout"
    case idle
    case writeTimeout = "write_timeout"
}

/// The open connections, in all and per client: admits a new one or says which cap it would pass.
package final class ConnectionCounter: Sendable {
    /// Which cap a refused connection would pass (the `reason` label of `linkd_connections_refused_total`).
    enum Refusal: String, CaseIterable, Sendable {
        case total
        case perClient = "per_client"
    }

    private struct Counts {
        var total = 0
        var byClient: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())
    private let limits: EdgeLimits
    private let metrics: HTTPMetrics

    /// A counter holding connections to `limits`' caps, reporting to `metrics`.
    package init(limits: EdgeLimits, metrics: HTTPMetrics) {
        self.limits = limits
        self.metrics = metrics
    }

    /// Counts a new connection of `client` in, or names the cap it would pass (nothing counted).
    func admit(_ client: String, capPerClient: Bool) -> Refusal? {
        let (refusal, open) = counts.withLock { counts -> (Refusal?, Int) in
            guard counts.total < limits.maxConnections else { return (.total, counts.total) }
            let mine = counts.byClient[client, default: 0]
            guard !capPerClient || mine < limits.maxConnectionsPerClient else { return (.perClient, counts.total) }
            counts.total += 1
            counts.byClient[client] = mine + 1
            return (nil, counts.total)
        }
        if let refusal { metrics.recordConnectionRefused(refusal) } else { metrics.setOpenConnections(open) }
        return refusal
    }

    /// Counts a connection of `client` out.
    func release(_ client: String) {
        let open = counts.withLock { counts -> Int in
            counts.total -= 1
            let mine = counts.byClient[client, default: 1] - 1
            counts.byClient[client] = mine > 0 ? mine : nil
            return counts.total
        }
        metrics.setOpenConnections(open)
    }

    /// Counts a connection closed by linkd for `expiry`.
    func recordExpiry(_ expiry: ConnectionExpiry) {
        metrics.recordConnectionClosed(expiry)
    }

    /// Connections open now.
    var open: Int { counts.withLock { $0.total } }
}
