import ArgumentParser
import Foundation

/// The `--data-dir` option of the offline keyring verbs (`linkd token …`): never a daemon's data directory.
///
/// Order of precedence: the flag, then `LINKD_DATA_DIR`, then `./data`.
struct DataDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The offline keyring's directory, not a daemon's (default: $LINKD_DATA_DIR or ./data).")
    var dataDirectory: String?

    /// The resolved data directory path.
    var path: String {
        if let dataDirectory { return dataDirectory }
        if let env = ProcessInfo.processInfo.environment["LINKD_DATA_DIR"], !env.isEmpty { return env }
        return "./data"
    }
}
