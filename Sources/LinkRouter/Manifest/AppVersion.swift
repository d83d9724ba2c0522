/// An app's version as its store shows it: dotted numbers (`1`, `1.3`, `2.10.1`), compared number by number, a
/// missing number counting as 0 (`1.3` = `1.3.0` < `1.10`). At most 4 numbers of at most 9 digits each; anything
/// else (`1.3-beta`, `v2`, `1..2`, an empty string) is not a version.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numbers, as written (trailing zeros kept for `description`).
    public let numbers: [Int]

    /// The version `text` spells, or nil when it spells none.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard (1...9).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int(part) else { return nil }
            numbers.append(number)
        }
        self.numbers = numbers
    }

    /// The version as written.
    public var description: String { numbers.map(String.init).joined(separator: ".") }

    /// Number by number; a missing number is 0.
    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        for index in 0..<max(lhs.numbers.count, rhs.numbers.count) {
            let (left, right) = (lhs.numbers.count > index ? lhs.numbers[index] : 0, rhs.numbers.count > index ? rhs.numbers[index] : 0)
            if left != right { return left < right }
        }
        return false
    }

    /// Equal when every number is (a missing number is 0: `1.3` == `1.3.0`).
    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }

    /// Hashes the numbers without trailing zeros (so equal versions hash alike).
    public func hash(into hasher: inout Hasher) {
        var trimmed = numbers
        while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }
}

/// The platforms a route's `since` may name.
public enum AppPlatform: String, Sendable, CaseIterable {
    /// iPhone, iPad (the App Store).
    case ios
    /// Android (Google Play).
    case android
}

/// The first app version that has a route: one for every platform, or per platform (`since: { ios: "1.3",
/// android: "1.4" }`; a platform not named has the route in every version).
public struct AppVersionRequirement: Sendable, Equatable {
    /// Per platform.
    public var versions: [AppPlatform: AppVersion]

    /// Creates a requirement.
    public init(versions: [AppPlatform: AppVersion]) { self.versions = versions }

    /// The version a caller on `platform` needs; with no platform, the highest any platform needs (an app that
    /// does not say which it is gets the route only when every platform's version has it).
    public func required(on platform: AppPlatform?) -> AppVersion? {
        guard let platform else { return versions.values.max() }
        return versions[platform]
    }
}

/// The app that asks for a resolution: its version and, when it says, its platform.
public struct ClientApp: Sendable, Equatable {
    /// The app's version.
    public var version: AppVersion
    /// Its platform, when known.
    public var platform: AppPlatform?

    /// Creates a client description.
    public init(version: AppVersion, platform: AppPlatform?) {
        self.version = version
        self.platform = platform
    }

    /// Whether this app has a route that needs `requirement` (nil: every version has it).
    public func has(_ requirement: AppVersionRequirement?) -> Bool {
        guard let needed = requirement?.required(on: platform) else { return true }
        return version >= needed
    }
}
