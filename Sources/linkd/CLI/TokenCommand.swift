import ArgumentParser
import Foundation
import TokenSigning

/// A duration such as `90s`, `15m`, `12h`, `7d`; at most 400 days.
struct TTL: ExpressibleByArgument {
    let seconds: UInt32

    init?(argument: String) {
        guard let seconds = try? TTL.parse(argument) else { return nil }
        self.seconds = seconds
    }

    static func parse(_ text: String) throws -> UInt32 {
        guard text.utf8.count <= 16, let unit = text.last, let number = UInt64(text.dropLast()), number > 0 else {
            throw ValidationError("ttl '\(text)': expected a positive number followed by s, m, h or d (e.g. 7d)")
        }
        let multiplier: UInt64
        switch unit {
        case "s": multiplier = 1
        case "m": multiplier = 60
        case "h": multiplier = 3600
        case "d": multiplier = 86_400
        default: throw ValidationError("ttl '\(text)': unit must be s, m, h or d")
        }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow, seconds <= UInt64(Keyring.maxTokenLifetimeCap) else {
            throw ValidationError("ttl '\(text)': at most 400d")
        }
        return UInt32(seconds)
    }
}

/// `linkd token …`: issue and verify share tokens.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Issue and verify share tokens with an offline keyring (tooling, test vectors).",
        subcommands: [Issue.self, Verify.self, Vectors.self, KeyringCommand.self])

    struct Issue: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue a token for a new random link id.")
        @OptionGroup var data: DataDirectoryOptions
        @Option(help: "App id.") var app: String
        @Option(help: "Lifetime: number + s|m|h|d, at most 400d.") var ttl: String = "7d"
        @Option(help: "hmac-sha256 or ed25519.") var suite: TokenSuite = .hmacSHA256
        @Option(help: "Link generation.") var generation: UInt32 = 0
        @Option(help: "Link id (32 hex characters); random when omitted.") var link: String?
        func run() throws {
            let seconds = try TTL.parse(ttl)
            var linkID = LinkID.random()
            if let link {
                guard let parsed = LinkID(hex: link) else { throw ValidationError("--link must be 32 hex characters") }
                linkID = parsed
            }
            let keyring = try LocalKeyring.open(data).keyring
            let now = UInt32(clamping: Int(Date().timeIntervalSince1970))
            let token = try cliRun {
                try keyring.issue(app: app, suite: suite, linkID: linkID, expiresAt: now + seconds,
                                  generation: generation, flags: 0, now: now)
            }
            print(token)
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Verify a token and print its fields as JSON.")
        @OptionGroup var data: DataDirectoryOptions
        @Argument(help: "The token.") var token: String
        @Option(help: "App id.") var app: String
        func run() throws {
            guard token.utf8.count <= 256 else { throw CLIError(message: "error: token is longer than 256 characters") }
            let keyring = try LocalKeyring.open(data).keyring
            let now = UInt32(clamping: Int(Date().timeIntervalSince1970))
            switch keyring.verify(token, app: app, now: now) {
            case .success(let claims): try printJSON(VerifiedToken(claims))
            case .failure(let error): throw CLIError(message: "error: token rejected: \(error.message) [\(error.code)]")
            }
        }
    }

    struct Vectors: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the test vectors file (test-only keys) to stdout or --output.")
        @Option(help: "Output path (stdout when omitted).") var output: String?
        func run() throws {
            let text = try cliRun { try TokenVectors.generate() }
            if let output {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output))
            } else {
                print(text, terminator: "")
            }
        }
    }
}

/// The JSON printed by `token verify`.
struct VerifiedToken: Encodable {
    let linkID: String
    let kid: UInt32
    let suite: String
    let expiresAt: Date
    let generation: UInt32
    let flags: UInt8

    init(_ c: TokenClaims) {
        linkID = c.linkID.hex
        kid = c.keyID
        suite = c.suite.name
        expiresAt = Date(timeIntervalSince1970: TimeInterval(c.expiresAt))
        generation = c.generation
        flags = c.flags
    }
}
