import Foundation

/// A fresh data directory under the system temporary directory.
public func temporaryDataDir() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("linkd-e2e-\(UUID().uuidString)").path
}

/// A harness failure (not an expectation: the test cannot go on).
public struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}

/// The key id carried by a token (bytes 1–4 of the decoded header, big-endian).
public func keyID(ofToken token: String) -> UInt32? {
    var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64), data.count > 5 else { return nil }
    return data[1..<5].reduce(0) { $0 << 8 | UInt32($1) }
}

/// Polls until `condition` holds or `seconds` pass, every 5 ms; the seconds it took, nil when it never held.
public func timeUntil(within seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Double? {
    let start = Date()
    while Date().timeIntervalSince(start) < seconds {
        if try await condition() { return Date().timeIntervalSince(start) }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition() ? Date().timeIntervalSince(start) : nil
}
