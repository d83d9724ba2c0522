public import ArgumentParser
import Foundation
public import TokenSigning
import LinkdServer

/// The offline keyring in a data directory: `keys.json` and `master.key` (or `LINKD_MASTER_KEY`). A daemon's data
/// directory is refused: the daemon keeps its keys in its store and never reads this keyring.
struct LocalKeyring {
    /// The file of key records.
    let file: KeyRecordFile
    /// The file's records, opened with the master key.
    let keyring: Keyring
    /// What the records' secrets are sealed with.
    let masterKey: MasterKey

    /// Reads the keyring of `options`' directory; every record must open with its master key.
    static func open(_ options: DataDirectoryOptions) throws -> LocalKeyring {
        let directory = options.path
        if let found = DaemonDataDirectory.daemonFile(in: directory) {
            throw CLIError(message: """
                \(directory) is a linkd daemon's data directory (\(found) is there): the daemon keeps its signing \
                keys in its store and never reads an offline keyring, so a key made or listed here is not the daemon's. \
                Manage the daemon's keys with `linkd admin keys list|rotate|retire` (docs/admin-cli.md); use another \
                --data-dir for an offline keyring.
                """)
        }
        do {
            let file = try KeyRecordFile(path: directory + "/keys.json")
            let master = try MasterKey.loadOrCreate(at: directory + "/master.key")
            return LocalKeyring(file: file, keyring: try Keyring(records: file.load(), masterKey: master), masterKey: master)
        } catch let error as TokenError {
            throw ValidationError("\(directory): \(error.message)")
        }
    }

    /// Applies `step` to the records, checks that its records open, and writes them to the file; the key it was about.
    func change(_ step: (_ records: [KeyRecord], _ masterKey: MasterKey) throws -> KeyChange) throws -> KeyInfo {
        let change = try step(keyring.records, masterKey)
        _ = try keyring.replacing(records: change.records)
        try file.save(change.records)
        return change.key.info
    }
}

extension TokenSuite: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.name) }
}

/// Wraps TokenSigning errors as clear CLI failures.
func cliRun<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as TokenError {
        throw CLIError(message: "error: \(error.message) [\(error.code)]")
    }
}

/// A CLI failure: a message on stderr and exit code 1.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// `linkd keys`: gone — it looked like it managed the daemon's keys, and did not. Says where each use went.
struct RemovedKeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Removed: see `linkd admin keys` (the daemon's keys) and `linkd token keyring` (offline).",
        shouldDisplay: false)
    @Argument(parsing: .allUnrecognized) var rest: [String] = []

    func run() throws {
        throw CLIError(message: """
            `linkd keys` is gone. The daemon's signing keys: `linkd admin keys list|rotate|retire` (over its admin \
            API, docs/admin-cli.md). An offline keyring for test vectors and tooling: `linkd token keyring \
            generate|rotate|list|retire|jwks --data-dir DIR`.
            """)
    }
}

/// `linkd token keyring …`: an offline keyring file for test vectors and tooling — never a daemon's keys.
struct KeyringCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyring",
        abstract: "An offline keyring (keys.json) for test vectors and tooling; not the daemon's keys (linkd admin keys).",
        subcommands: [Generate.self, Rotate.self, List.self, Retire.self, JWKS.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key (the first per app and suite becomes active).")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        @Option(help: "hmac-sha256 or ed25519.") var suite: TokenSuite = .hmacSHA256
        func run() throws {
            let local = try LocalKeyring.open(data)
            try printJSON(try cliRun {
                try local.change { try KeyRotation.generate(records: $0, app: app, suite: suite, masterKey: $1) }
            })
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a new key active; the old one verifies until its tokens expire.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        @Option(help: "hmac-sha256 or ed25519.") var suite: TokenSuite = .hmacSHA256
        func run() throws {
            let local = try LocalKeyring.open(data)
            try printJSON(try cliRun {
                try local.change { try KeyRotation.rotate(records: $0, app: app, suite: suite, masterKey: $1) }
            })
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never secrets).")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id (all apps when omitted).") var app: String?
        func run() throws {
            try printJSON(try LocalKeyring.open(data).keyring.keys(app: app))
        }
    }

    struct Retire: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Retire a key: it no longer signs or verifies.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        @Option(name: .customLong("kid"), help: "Key id.") var keyID: UInt32
        func run() throws {
            let local = try LocalKeyring.open(data)
            _ = try cliRun { try local.change { records, _ in try KeyRotation.retire(records: records, app: app, keyID: keyID) } }
            print("retired \(app)/\(keyID)")
        }
    }

    struct JWKS: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "jwks", abstract: "Print the app's Ed25519 public keys as a JWK set.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        func run() throws { print(try LocalKeyring.open(data).keyring.jwks(app: app)) }
    }
}
