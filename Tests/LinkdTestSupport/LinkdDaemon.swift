public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `linkd serve` child process, for the tests that run the built binary (JourneyTests, LinkdClientTests): the one
/// place that writes a test's configuration file (`configurationFile(_:manifests:in:)`) and starts the process.
public final class LinkdDaemon: @unchecked Sendable {
    /// The child process.
    public let process: Process
    /// The variables it was started with (beyond the inherited ones).
    public let environment: [String: String]
    /// Its `--data-dir`, when it was given one.
    public var dataDir: String? {
        guard let arguments = process.arguments, let flag = arguments.firstIndex(of: "--data-dir"), flag + 1 < arguments.count
        else { return nil }
        return arguments[flag + 1]
    }
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    /// The file holding the admin key made on first start, as the daemon printed its path (nil on later starts of the
    /// same data directory).
    public let initialAdminKeyFile: String?
    /// The admin key made on first start, read from `initialAdminKeyFile` (the daemon never prints it).
    public let initialAdminKey: String?
    /// Everything the daemon printed to standard output so far.
    public var output: String { collector.text }
    /// Everything the daemon wrote to standard error so far (also passed on to the test's standard error).
    public var errorOutput: String { errors.text }

    private let collector = OutputCollector()
    private let errors = OutputCollector()

    /// Standard output as it arrives; signals `ready` when the daemon says it listens or the pipe closes.
    private final class OutputCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var collected = ""
        private var signalled = false
        let ready = DispatchSemaphore(value: 0)

        var text: String { lock.withLock { collected } }

        func append(_ data: Data) {
            lock.withLock {
                if data.isEmpty {
                    if !signalled { signalled = true; ready.signal() }
                    return
                }
                collected += String(decoding: data, as: UTF8.self)
                if !signalled, collected.contains("linkd: listening on ") { signalled = true; ready.signal() }
            }
        }
    }

    /// The daemon did not print its address in time; carries what it printed.
    public struct StartFailed: Error, CustomStringConvertible {
        /// What went wrong, with the daemon's output.
        public let description: String
    }

    /// Starts `linkd serve --port 0 --data-dir DATADIR` in the repository root and waits until it listens: the one way
    /// the tests start a daemon with a configuration of their own.
    /// - Parameters:
    ///   - dataDir: the data directory (default: a fresh one).
    ///   - configuration: YAML lines of a configuration file (`rateLimitPerSecond: 0\n`); with it or `manifests`,
    ///     the file is written to `DATADIR/linkd.yaml` (`configurationFile(_:manifests:in:)`) and given with `--config`.
    ///   - manifests: manifest files the configuration names (`manifests:`), instead of the example apps.
    ///   - arguments: more arguments after `serve`.
    ///   - environment: variables added to (or, with an empty value, removed from) the inherited environment.
    public convenience init(
        dataDir: String = temporaryDataDir(), configuration: String? = nil, manifests: [String] = [], arguments: [String] = [],
        environment: [String: String] = [:], timeout: Double = 30
    ) throws {
        // The caller's LINKD_ variables pass, but those naming a configuration, place or store.
        let removed: Set = ["LINKD_CONFIG", "LINKD_PORT", "LINKD_HOST", "LINKD_DATA_DIR", "LINKD_MANIFESTS", "LINKD_MASTER_KEY", "LINKD_DATABASE_URL"]
        var inherited = ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix("LINKD_") && !removed.contains($0.key) }
        inherited["LINKD_LOG_LEVEL"] = inherited["LINKD_LOG_LEVEL"] ?? "warning"
        let environment = inherited.merging(environment) { _, given in given }
        var configFlag: [String] = []
        if configuration != nil || !manifests.isEmpty {
            configFlag = ["--config", try Self.configurationFile(configuration ?? "", manifests: manifests, in: dataDir)]
        }
        try self.init(
            serveArguments: ["--port", "0", "--data-dir", dataDir] + configFlag + arguments,
            workingDirectory: LinkdProcess.repositoryRoot, environment: environment, timeout: timeout)
    }

    /// `init(dataDir:configuration:manifests:arguments:environment:)` on a Dispatch thread: its start blocks while the
    /// process comes up, and on Swift's cooperative pool (two threads on two cores) that would stall the time limits
    /// other tests measure.
    public static func start(
        dataDir: String = temporaryDataDir(), configuration: String? = nil, manifests: [String] = [], arguments: [String] = [],
        environment: [String: String] = [:]
    ) async throws -> LinkdDaemon {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try LinkdDaemon(
                        dataDir: dataDir, configuration: configuration, manifests: manifests, arguments: arguments, environment: environment)
                })
            }
        }
    }

    /// Writes a configuration file for `linkd serve --config`: `configuration` (YAML lines), then, when `manifests`
    /// is not empty, a `manifests:` list naming them. It goes to `DATADIR/linkd.yaml`, the data directory made first
    /// (mode 0700, as linkd wants it) when it does not exist; a later start on the same directory writes it anew.
    /// Returns the file's path.
    public static func configurationFile(_ configuration: String, manifests: [String] = [], in dataDir: String) throws -> String {
        try FileManager.default.createDirectory(
            atPath: dataDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var text = configuration
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        if !manifests.isEmpty {
            /// A YAML double-quoted scalar of `path`.
            func quoted(_ path: String) -> String {
                "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    .replacingOccurrences(of: "\n", with: "\\n") + "\""
            }
            text += "manifests:\n" + manifests.map { "  - \(quoted($0))\n" }.joined()
        }
        let path = dataDir + "/linkd.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Starts `linkd serve ARGUMENTS` exactly as given, in `workingDirectory`, with every `LINKD_` variable of the
    /// inherited environment removed but those in `environment` (an empty value removes one), and waits until it
    /// listens.
    /// `binary` is the executable to start (default: the built `linkd`; the install tests start a copy elsewhere).
    public init(
        serveArguments: [String], workingDirectory: URL, environment: [String: String] = [:], timeout: Double = 30,
        binary: String? = LinkdProcess.binary
    ) throws {
        guard let binary else { throw LinkdProcess.BinaryNotFound() }
        self.environment = environment
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve"] + serveArguments
        process.currentDirectoryURL = workingDirectory
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LINKD_") }
        for (name, value) in environment { env[name] = value.isEmpty ? nil : value }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let collector = self.collector, errors = self.errors
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            collector.append(data)
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            FileHandle.standardError.write(data)
            errors.append(data)
        }
        try process.run()
        _ = collector.ready.wait(timeout: .now() + timeout)
        let printed = collector.text
        guard let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("linkd: listening on ") }) else {
            process.terminate()
            throw StartFailed(description: "linkd serve did not start; it printed:\n\(printed)\(errors.text)")
        }
        baseURL = String(line.dropFirst("linkd: listening on ".count))
        let lines = printed.split(separator: "\n")
        if let index = lines.firstIndex(where: { $0.contains("admin API key was made") }), index + 1 < lines.count {
            let file = lines[index + 1].trimmingCharacters(in: .whitespaces)
            initialAdminKeyFile = file
            initialAdminKey = (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            initialAdminKeyFile = nil
            initialAdminKey = nil
        }
    }

    /// The rest of the first line of standard output starting with `prefix`, waiting up to `timeout` seconds for it
    /// (a listener that reports after the first); nil when none came.
    public func line(startingWith prefix: String, timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { return String(line.dropFirst(prefix.count)) }
            usleep(20_000)
        } while Date() < deadline
        return nil
    }

    /// The TLS listener's base URL (`https://HOST:PORT`), once it reported listening.
    public var tlsBaseURL: String? { line(startingWith: "linkd: TLS listening on ") }

    /// Sends `signal` and waits for the process to end. Returns false when it was still running after `timeout`
    /// seconds (it is then killed with SIGKILL), so a shutdown that hangs fails the test instead of hanging it.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Double = 20) -> Bool {
        guard process.isRunning else { return true }
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    deinit { stop(signal: SIGKILL) }
}

/// A real HTTP client (Foundation's URLSession, over libcurl on Linux) for tests against a daemon process.
public enum TestHTTP {
    /// One exchange: status, body and headers.
    public struct Reply: Sendable {
        /// HTTP status code.
        public let status: Int
        /// Body bytes.
        public let body: Data
        /// Response headers, names lowercased.
        public let headers: [String: String]
        /// The body parsed as a JSON object (empty when it is not one).
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    /// Sends a request; `json` is encoded as the body with `Content-Type: application/json`; `headers` are added
    /// (`Host` too: libcurl sends the given one).
    public static func send(
        _ method: String, _ url: String, bearer: String? = nil, json: [String: Any]? = nil, headers: [String: String] = [:]
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)".lowercased()] = "\(value)" }
        return Reply(status: http.statusCode, body: data, headers: headers)
    }
}
