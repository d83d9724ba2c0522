// swift-tools-version:6.1
import PackageDescription

/// One set of compiler settings, applied to every Swift target.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "linkd",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .executable(name: "linkd", targets: ["linkd"]),
        .library(name: "LinkdServer", targets: ["LinkdServer"]),
        .library(name: "TokenSigning", targets: ["TokenSigning"]),
        .library(name: "LinkRouter", targets: ["LinkRouter"]),
        .library(name: "ICalendar", targets: ["ICalendar"]),
        .library(name: "WebFallback", targets: ["WebFallback"]),
        .library(name: "LinkdClient", targets: ["LinkdClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
    ],
    targets: [
        // C libraries, through pkg-config. Only TokenSigning and ACME import COpenSSL; only the HTTP client imports CCurl.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // glibc's malloc.h (mallopt): only LinkdServer's MallocTuning imports it.
        .systemLibrary(name: "CMalloc"),
        // Typed wrappers over curl's variadic `curl_easy_setopt` / `curl_easy_getinfo`.
        .target(
            name: "CCurlShims",
            dependencies: ["CCurl"]
        ),

        // linkd's one HTTP client (libcurl on threads of its own, time limits and caps on every request): origin
        // previews, webhook deliveries, `linkd admin`.
        .target(
            name: "OutboundHTTP",
            dependencies: ["CCurlShims"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TokenSigning",
            dependencies: ["COpenSSL"],
            swiftSettings: swiftSettings
        ),
        // An ACME (RFC 8555) client: the account key (P-256, ES256 JWS), HTTP-01 challenges, CSRs and certificate
        // chains through OpenSSL, requests through OutboundHTTP.
        .target(
            name: "ACME",
            dependencies: ["COpenSSL", "OutboundHTTP", "TokenSigning"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ICalendar",
            swiftSettings: swiftSettings
        ),
        // Time limits for async work: one deadline helper for the store's database calls and the pages' preview wait.
        .target(
            name: "AsyncTimeouts",
            swiftSettings: swiftSettings
        ),
        // UTC calendar fields by integer arithmetic: Foundation's Calendar and date formatters load ICU's data.
        .target(
            name: "UTCTime",
            swiftSettings: swiftSettings
        ),
        // A strict RFC 4180 reader for imported files: records with their lines, fed in pieces, every cap checked as
        // the bytes come. No dependencies.
        .target(
            name: "CSVRecords",
            swiftSettings: swiftSettings
        ),
        // The one JSON writer for answers written by hand: what `JSONEncoder` writes with sorted keys, in one pass
        // (`JSONBytes`, and `JSONValue` over it). No dependencies.
        .target(
            name: "JSONOutput",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LinkRouter",
            dependencies: [
                "ICalendar",
                "JSONOutput",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // Code for the app's own build from its manifest: route ids with typed params, tabs and states (Swift,
        // TypeScript, Kotlin), React Navigation's linking config, Android's intent filters. `linkd codegen` and
        // `GET /v1/apps/{app}/codegen/{lang}` print it.
        .target(
            name: "RouteCodegen",
            dependencies: ["LinkRouter"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WebFallback",
            dependencies: [
                "LinkRouter",
                "UTCTime",
                "AsyncTimeouts",
                "OutboundHTTP",
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            swiftSettings: swiftSettings
        ),
        // Storage: one memory front (StoreFront) over embedded SQLite (GRDB) or shared PostgreSQL (postgres-nio)
        // with a change feed.
        .target(
            name: "LinkStore",
            dependencies: [
                "UTCTime",
                "AsyncTimeouts",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP plumbing that knows no domain: the connection edge and its fast path, the hot-route table, the
        // route recorder, middleware, the rate limiter, the request context, `APIError` and `ReadyResponse`, the
        // HTTP metrics. It does not import the store, the router or the keyring: the compiler keeps the edge away
        // from domain code.
        .target(
            name: "LinkdHTTP",
            dependencies: [
                "UTCTime",
                "PrintableText",
                "JSONOutput",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP server: routes, the event-loop fast path, configuration, services, auth, links. `linkd serve` and
        // the server tests call its `buildServer(…)`.
        .target(
            name: "LinkdServer",
            dependencies: [
                "CMalloc",
                "LinkdHTTP",
                "JSONOutput",
                "CSVRecords",
                "TokenSigning",
                "LinkRouter",
                "ICalendar",
                "WebFallback",
                "LinkStore",
                "UTCTime",
                "OutboundHTTP",
                "PrintableText",
                "ACME",
                "RouteCodegen",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // What is safe to log or print: the control, separator and format characters the API refuses and the log
        // and the CLI escape. No dependencies.
        .target(
            name: "PrintableText",
            swiftSettings: swiftSettings
        ),
        // The client side of `linkd admin`: where the daemon is and the key (flags, environment, credentials file),
        // calls over OutboundHTTP with their failures as exit codes, tables for the terminal.
        .target(
            name: "LinkdAdmin",
            dependencies: ["OutboundHTTP", "TokenSigning", "PrintableText"],
            swiftSettings: swiftSettings
        ),
        // The command line: argument parsing and `@main`; the server is LinkdServer's.
        .executableTarget(
            name: "linkd",
            dependencies: [
                "LinkdServer",
                "LinkdHTTP",
                "LinkdAdmin",
                "TokenSigning",
                "LinkRouter",
                "ICalendar",
                "RouteCodegen",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The Swift client app teams embed: Foundation alone (FoundationNetworking on Linux), so an iOS app pays
        // nothing for the daemon's dependencies. No other target of this package may be added here.
        .target(
            name: "LinkdClient",
            swiftSettings: swiftSettings
        ),

        // The one launcher of the built `linkd` binary (`LinkdDaemon`, `LinkdProcess`) for the tests that depend on
        // `linkd`; iOS's and Android's reading of the well-known files and the URLs to try against them (from
        // LinkRouter's manifests); fixtures both server and journey tests use (user agents, claim codes in pages).
        .target(
            name: "LinkdTestSupport",
            dependencies: ["LinkRouter", "TokenSigning", .product(name: "Logging", package: "swift-log")],
            path: "Tests/LinkdTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TokenSigningTests",
            dependencies: ["TokenSigning"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LinkRouterTests",
            dependencies: ["LinkRouter", "ICalendar", "JSONOutput"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LinkStoreTests",
            // GRDB: the audit tests install SQLite triggers that make a write fail inside a transaction.
            dependencies: ["LinkStore", "LinkdTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        // The server in-process (`buildServer` on a real port, `withAPI`). It does not depend on `linkd` and never
        // starts the binary: a test that runs `linkd serve` as a process belongs in JourneyTests.
        .testTarget(
            name: "LinkdServerTests",
            dependencies: [
                "LinkdServer",
                "LinkdHTTP",
                "JSONOutput",
                "LinkStore",
                "TokenSigning",
                "LinkdTestSupport",
                "LinkRouter",
                "RouteCodegen",
                "PrintableText",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // Every test that runs the built `linkd` binary as a process: its verbs, and the daemon it serves, from the
        // first request to the last answer. It depends on `linkd`, so `swift test` rebuilds the binary it runs.
        // LinkdServer, LinkdHTTP and LinkRouter: what a test checks the daemon's answers against (the router, the
        // webhook address policy).
        .testTarget(
            name: "JourneyTests",
            dependencies: [
                "linkd",
                "LinkdServer",
                "LinkdHTTP",
                "LinkRouter",
                "LinkdTestSupport",
                "TokenSigning",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The webhook receiver: a Hummingbird server in the test process.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        // The client against the built daemon as a process (LinkdTestSupport), its wire types against the server's
        // own (LinkRouter's Resolution, compared in files that do not import LinkdClient).
        .testTarget(
            name: "LinkdClientTests",
            dependencies: ["LinkdClient", "linkd", "LinkdTestSupport", "LinkRouter"],
            swiftSettings: swiftSettings
        ),
        // The generated code of the example manifests compiled by swiftc, tsc and kotlinc, run by node; the Android
        // intent filters read back with FoundationXML and matched as Android matches paths.
        .testTarget(
            name: "RouteCodegenTests",
            dependencies: ["RouteCodegen", "LinkRouter", "LinkdTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ICalendarTests",
            dependencies: ["ICalendar"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AsyncTimeoutsTests",
            dependencies: ["AsyncTimeouts"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CSVRecordsTests",
            dependencies: ["CSVRecords"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UTCTimeTests",
            dependencies: ["UTCTime"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OutboundHTTPTests",
            dependencies: ["OutboundHTTP", "LinkdTestSupport"],
            swiftSettings: swiftSettings
        ),
        // The ACME client against a real ACME server (pebble on loopback, scripts/test-pebble.sh), with a NIO HTTP
        // server answering its HTTP-01 challenges.
        .testTarget(
            name: "ACMETests",
            dependencies: [
                "ACME",
                "OutboundHTTP",
                "LinkdTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebFallbackTests",
            dependencies: ["WebFallback", "LinkRouter", "LinkdTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)

// libFuzzer targets (docs/fuzzing.md), declared only when LINKD_FUZZ=1 so that ordinary builds and `make test` never
// see them. Build them with scripts/fuzz.sh: each is an executable whose `main` is libFuzzer's
// (`-sanitize=fuzzer,address`), reaching the parsers through `package` access.
if Context.environment["LINKD_FUZZ"] == "1" {
    /// One fuzz target: `Fuzz/<name>/`, linked with the shared checks of `Fuzz/Support`.
    func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport"] + dependencies,
            path: "Fuzz/\(name)",
            swiftSettings: swiftSettings
        )
    }
    package.targets += [
        .target(name: "FuzzSupport", path: "Fuzz/Support", swiftSettings: swiftSettings),
        fuzzTarget("FuzzRequestScanner", [
            "LinkdHTTP",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        fuzzTarget("FuzzFlatJSON", ["LinkdHTTP", .product(name: "NIOCore", package: "swift-nio")]),
        fuzzTarget("FuzzTokenCodec", ["TokenSigning"]),
        fuzzTarget("FuzzURLRouter", ["LinkRouter"]),
        fuzzTarget("FuzzICalendar", ["ICalendar", "LinkRouter"]),
        fuzzTarget("FuzzManifest", ["LinkRouter"]),
        fuzzTarget("FuzzConfiguration", ["LinkdServer"]),
        fuzzTarget("FuzzCSV", ["CSVRecords"]),
    ]
}
