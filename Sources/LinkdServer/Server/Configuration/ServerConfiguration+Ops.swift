/// The ops listener: `/metrics`, `/readyz` and `/healthz` on an address of their own, for a port the load
/// balancer and Prometheus reach and the internet does not.
///
/// Keys (YAML file key / environment variable — type — default):
/// - `opsHost` / `LINKD_OPS_HOST` — String — `host`: the address the ops listener binds.
/// - `opsPort` / `LINKD_OPS_PORT` — Int 0–65535 — none: the ops listener's port (0 picks a free one). Unset, there is
///   no ops listener and the public one answers everything, as without this feature. Set, `/metrics` and `/readyz`
///   are answered there and the public listener answers them 404; `/healthz` is answered on both.
extension ServerConfiguration {
    /// Whether `/metrics` and `/readyz` are served by an ops listener of their own.
    public var hasOpsListener: Bool { opsPort != nil }

    /// The address the ops listener binds: `opsHost`, else `host`.
    public var resolvedOpsHost: String { opsHost ?? host }

    /// Reads `LINKD_OPS_HOST` and `LINKD_OPS_PORT` (an empty value is unset).
    mutating func readOpsEnvironment(_ environment: [String: String]) throws {
        if let value = environment["LINKD_OPS_HOST"], !value.isEmpty { opsHost = value }
        if let value = environment["LINKD_OPS_PORT"], !value.isEmpty {
            guard let port = Int(value) else { throw ConfigurationError(message: "LINKD_OPS_PORT: '\(value)' is not a port number") }
            opsPort = port
        }
    }

    /// Refuses an ops listener that cannot work: a port out of range, the public listener's port, a host without a port.
    func validateOps() throws {
        guard let opsPort else {
            guard opsHost == nil else { throw ConfigurationError(message: "opsHost is set but opsPort is not: set both, or neither") }
            return
        }
        guard (0...65_535).contains(opsPort) else { throw ConfigurationError(message: "opsPort \(opsPort) is out of range 0–65535") }
        guard opsPort == 0 || opsPort != port else {
            throw ConfigurationError(message: "opsPort \(opsPort) is the public port: the ops listener needs a port of its own")
        }
        guard !resolvedOpsHost.isEmpty else { throw ConfigurationError(message: "opsHost is empty") }
    }
}
