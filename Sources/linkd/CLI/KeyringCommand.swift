public import ArgumentParser
import Foundation
public import TokenSigning

/// Opens the local keyring in a data directory: `keys.json` and `master.key` (or `LINKD_MASTER_KEY`).
enum LocalKeyring {
    static func open(_ options: DataDirectoryOptions) throws -> Keyring {
        let directory = options.path
        do {
            let store = try FileKeyringStore(path: directory + "/keys.json")
            let master = try MasterKey.loadOrCreate(at: directory + "/master.key")
            return try Keyring(store: store, masterKey: master)
        } catch let error as TokenError {
            throw ValidationError("\(directory): \(error.message)")
        }
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

/// `linkd keys …`: manage signing keys.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Manage token signing keys in the local keyring.",
        subcommands: [Generate.self, Rotate.self, List.self, Retire.self, JWKS.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key (the first per app and suite becomes active).")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        @Option(help: "hmac-sha256 or ed25519.") var suite: TokenSuite = .hmacSHA256
        func run() throws {
            let keyring = try LocalKeyring.open(data)
            try printJSON(try cliRun { try keyring.generate(app: app, suite: suite) })
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a new key active; the old one verifies until its tokens expire.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        @Option(help: "hmac-sha256 or ed25519.") var suite: TokenSuite = .hmacSHA256
        func run() throws {
            let keyring = try LocalKeyring.open(data)
            try printJSON(try cliRun { try keyring.rotate(app: app, suite: suite) })
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never secrets).")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id (all apps when omitted).") var app: String?
        func run() throws {
            try printJSON(try LocalKeyring.open(data).keys(app: app))
        }
    }

    struct Retire: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Retire a key: it no longer signs or verifies.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        @Option(name: .customLong("kid"), help: "Key id.") var keyID: UInt32
        func run() throws {
            let keyring = try LocalKeyring.open(data)
            try cliRun { try keyring.retire(app: app, keyID: keyID) }
            print("retired \(app)/\(keyID)")
        }
    }

    struct JWKS: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "jwks", abstract: "Print the app's Ed25519 public keys as a JWK set.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        func run() throws { print(try LocalKeyring.open(data).jwks(app: app)) }
    }
}
