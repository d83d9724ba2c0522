// swift-tools-version:6.1
import PackageDescription

/// One set of compiler settings, applied to every Swift target.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "linkd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "linkd", targets: ["linkd"]),
        .library(name: "TokenSigning", targets: ["TokenSigning"]),
        .library(name: "LinkRouter", targets: ["LinkRouter"]),
        .library(name: "ICalendar", targets: ["ICalendar"]),
        .library(name: "WebFallback", targets: ["WebFallback"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // C libraries, through pkg-config. Only TokenSigning imports COpenSSL; only the HTTP client imports CCurl.
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
        // Typed wrappers over curl's variadic `curl_easy_setopt` / `curl_easy_getinfo`.
        .target(
            name: "CCurlShims",
            dependencies: ["CCurl"]
        ),

        .target(
            name: "TokenSigning",
            dependencies: ["COpenSSL"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ICalendar",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LinkRouter",
            dependencies: [
                "ICalendar",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WebFallback",
            dependencies: [
                "LinkRouter",
                "CCurlShims",
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "linkd",
            dependencies: [
                "TokenSigning",
                "LinkRouter",
                "ICalendar",
                "WebFallback",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "TokenSigningTests",
            dependencies: ["TokenSigning"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LinkRouterTests",
            dependencies: ["LinkRouter"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ICalendarTests",
            dependencies: ["ICalendar"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebFallbackTests",
            dependencies: ["WebFallback"],
            swiftSettings: swiftSettings
        ),
    ]
)
