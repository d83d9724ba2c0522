import ArgumentParser
import Foundation
import LinkdHTTP
import LinkdServer

/// `linkd serve`: runs the HTTP daemon.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the linkd HTTP server (embedded SQLite store in the data directory)."
    )

    @Option(help: "Address to listen on (default: $LINKD_HOST or 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one (default: $LINKD_PORT or 8080).")
    var port: Int?

    @Option(name: .customLong("data-dir"), help: "Data directory (default: $LINKD_DATA_DIR or ./data).")
    var dataDir: String?

    @Option(help: "YAML configuration file (default: $LINKD_CONFIG).")
    var config: String?

    func run() async throws {
        EscapingLogHandler.bootstrap()  // no line of the daemon's log can be forged by the text it logs
        MallocTuning.apply()  // before the threads that allocate start
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(
                file: config, environment: ProcessInfo.processInfo.environment, host: host, port: port, dataDir: dataDir
            )
        } catch let error as ConfigurationError {
            throw ValidationError(error.message)
        }
        do {
            let server = try await buildServer(
                configuration: configuration,
                onListening: { port in Self.say("linkd: listening on http://\(configuration.http.host):\(port)") },
                onOpsListening: { port in
                    Self.say("linkd: ops listener (/metrics, /readyz, /healthz) on http://\(configuration.resolvedOpsHost):\(port)")
                },
                onTLSListening: { port in
                    Self.say("linkd: TLS listening on https://\(configuration.tls.host ?? configuration.http.host):\(port)")
                })
            if let file = server.initialAdminKeyFile {
                Self.say(Self.initialAdminKeyNotice(file: file))
            }
            try await server.run()
        } catch let error as ConfigurationError {
            printError("linkd: \(error.message)")
            throw ExitCode(1)
        }
    }

    /// What first start prints about the admin key it made: where the file is and how to use it — never the key,
    /// which container logs would keep.
    static func initialAdminKeyNotice(file: String) -> String {
        let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
        let path = (absolute as NSString).standardizingPath
        return """
            linkd: first start — an admin API key was made and written to this file (mode 0600; linkd keeps only its hash):
              \(path)
            linkd: send it as `Authorization: Bearer $(cat \(path))`; move it into your secret store, then delete the file.
            """
    }

    /// Writes a line to standard output at once (scripts and tests read it while the server runs).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
