import ArgumentParser
import Foundation

/// The `--data-dir` option shared by every verb that touches state.
///
/// Order of precedence: the flag, then `LINKD_DATA_DIR`, then `./data`.
struct DataDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Data directory (default: $LINKD_DATA_DIR or ./data).")
    var dataDirectory: String?

    /// The resolved data directory path.
    var path: String {
        if let dataDirectory { return dataDirectory }
        if let env = ProcessInfo.processInfo.environment["LINKD_DATA_DIR"], !env.isEmpty { return env }
        return "./data"
    }
}
