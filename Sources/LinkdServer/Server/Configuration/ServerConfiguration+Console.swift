/// The admin console at `/admin` (docs/admin-console.md).
///
/// Keys (YAML file key / environment variable — type — default):
/// - `adminConsole` / `LINKD_ADMIN_CONSOLE` — String — `public`: where the console is served: `public` (the main
///   listener, beside the admin API it is a front for), `ops` (the ops listener only: needs `opsPort`; for a
///   deployment whose ops port only the operators' network reaches), or `off`.
/// - `adminSessionIdleSeconds` — Int 60–86400 — `1800`: a console session unused this long is over.
/// - `adminSessionMaxSeconds` — Int 60–604800 — `43200` (12 h): a session is over this long after sign-in, used or not.
extension ServerConfiguration {
    /// Where the console is served.
    enum ConsolePlacement: String, CaseIterable {
        case `public`, ops, off
    }

    /// The console's placement, read from `adminConsole` (validated at load).
    var consolePlacement: ConsolePlacement { ConsolePlacement(rawValue: adminConsole) ?? .public }

    /// Reads `LINKD_ADMIN_CONSOLE` (an empty value is unset).
    mutating func readConsoleEnvironment(_ environment: [String: String]) {
        if let value = environment["LINKD_ADMIN_CONSOLE"], !value.isEmpty { adminConsole = value }
    }

    /// Refuses a placement that is not one, `ops` without an ops listener, and session limits out of range.
    func validateConsole() throws {
        guard let placement = ConsolePlacement(rawValue: adminConsole) else {
            let names = ConsolePlacement.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(message: "adminConsole '\(adminConsole.prefix(40))' must be one of \(names)")
        }
        if placement == .ops, opsPort == nil {
            throw ConfigurationError(message: "adminConsole is 'ops' but opsPort is not set: set opsPort, or use 'public'")
        }
        guard (60...86_400).contains(adminSessionIdleSeconds) else {
            throw ConfigurationError(message: "adminSessionIdleSeconds must be 60–86400")
        }
        guard (60...604_800).contains(adminSessionMaxSeconds), adminSessionIdleSeconds <= adminSessionMaxSeconds else {
            throw ConfigurationError(message: "adminSessionMaxSeconds must be 60–604800 and at least adminSessionIdleSeconds")
        }
    }
}
