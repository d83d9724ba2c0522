public import Foundation
import LinkRouter
import OutboundHTTP
import Synchronization

/// Where and how to fetch an app's previews.
///
/// Keys: `baseURL` (required, `https://api.example.com`; `http` only for loopback tests), `previewPath` (required,
/// `/v1/previews/{flowId}`: each `{name}` is replaced by the link's param `name`, percent-escaped as one path
/// segment), `connectTimeoutMilliseconds` (default 1000), `totalTimeoutMilliseconds` (default 2000), `maxBodyBytes`
/// (default 65536), `maxRedirects` (default 3, each within the origin), `cacheTTLSeconds` (default 60),
/// `staleIfErrorSeconds` (default 3600), `failureBackoffSeconds` (default 5: after a failed fetch the origin is not
/// asked again for that item for this long), `maxCacheEntries` (default 10000).
public struct OriginConfiguration: Sendable {
    /// The one allowlisted origin (scheme, host, port) and base path.
    public var baseURL: String
    /// The path template under `baseURL`.
    public var previewPath: String
    /// Connect timeout.
    public var connectTimeoutMilliseconds: Int
    /// Whole-transfer timeout.
    public var totalTimeoutMilliseconds: Int
    /// Body cap: the transfer is aborted past it.
    public var maxBodyBytes: Int
    /// Redirects followed, only to the same scheme+host+port.
    public var maxRedirects: Int
    /// How long a result is served without asking the origin again.
    public var cacheTTLSeconds: Double
    /// How long past the TTL a cached preview is still served when the origin fails.
    public var staleIfErrorSeconds: Double
    /// How long after a failed fetch the item's origin is left alone (a down origin is not hammered).
    public var failureBackoffSeconds: Double
    /// Cache bound; the oldest entries go first.
    public var maxCacheEntries: Int

    /// - Parameters: see the properties.
    public init(
        baseURL: String, previewPath: String, connectTimeoutMilliseconds: Int = 1000,
        totalTimeoutMilliseconds: Int = 2000, maxBodyBytes: Int = 65536, maxRedirects: Int = 3,
        cacheTTLSeconds: Double = 60, staleIfErrorSeconds: Double = 3600, failureBackoffSeconds: Double = 5,
        maxCacheEntries: Int = 10000
    ) {
        self.baseURL = baseURL
        self.previewPath = previewPath
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.totalTimeoutMilliseconds = totalTimeoutMilliseconds
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
        self.cacheTTLSeconds = cacheTTLSeconds
        self.staleIfErrorSeconds = staleIfErrorSeconds
        self.failureBackoffSeconds = failureBackoffSeconds
        self.maxCacheEntries = maxCacheEntries
    }
}

/// What the origin said about an item.
public enum PreviewResult: Sendable, Equatable {
    /// It exists; here is its preview.
    case preview(Preview)
    /// The origin answered 404 or 410: show the unavailable page (410).
    case deleted
    /// Down, slow, too big, bad JSON, a redirect away, any other status: show the page without a preview.
    case unavailable(reason: String)
}

/// Fetches previews from one app's origin over libcurl, off the caller's event loop, with a bounded cache.
public final class OriginClient: Sendable {
    /// The configuration.
    public let configuration: OriginConfiguration
    private let origin: Origin?
    private let cache: Mutex<PreviewCache>

    /// - Parameter configuration: The origin; a `baseURL` that is not an absolute http(s) URL makes every fetch
    ///   `unavailable` (the manifest loader is expected to refuse it first).
    public init(configuration: OriginConfiguration) {
        self.configuration = configuration
        self.origin = Origin(configuration.baseURL)
        self.cache = Mutex(PreviewCache(capacity: max(1, configuration.maxCacheEntries)))
    }

    /// The preview of the item the link's params name, from the cache when fresh.
    /// - Parameters:
    ///   - params: The link's params (from the link record, never from the request).
    ///   - now: The current time (for tests).
    public func preview(params: [String: String], now: Date = Date()) async -> PreviewResult {
        guard let url = previewURL(params: params) else {
            return .unavailable(reason: "no preview path for these params (one is missing, empty, too long or a dot segment)")
        }
        let cached = cache.withLock { $0.entry(for: url) }
        if let cached, let answer = answer(from: cached, now: now), answer.fresh { return answer.result }
        let fresh = await fetch(url)
        if case .unavailable = fresh {
            // Failures are remembered for the backoff only; a cached preview is kept for stale-if-error.
            cache.withLock { $0.markFailed(url, at: now) }
            if let cached, case .preview = cached.result,
                now.timeIntervalSince(cached.storedAt) < configuration.cacheTTLSeconds + configuration.staleIfErrorSeconds
            {
                return cached.result  // stale-if-error
            }
            return fresh
        }
        cache.withLock { $0.store(fresh, for: url, at: now) }
        return fresh
    }

    /// The cached result for the link's params without asking the origin: `fresh` when within the TTL (or, after a
    /// failure, within the backoff: then a stale preview or `unavailable`), else a stale preview still within
    /// stale-if-error. Nil when nothing usable is cached.
    public func cachedPreview(params: [String: String], now: Date = Date()) -> (result: PreviewResult, fresh: Bool)? {
        guard let url = previewURL(params: params), let cached = cache.withLock({ $0.entry(for: url) }) else { return nil }
        return answer(from: cached, now: now)
    }

    private func answer(from entry: PreviewCache.Entry, now: Date) -> (result: PreviewResult, fresh: Bool)? {
        let age = now.timeIntervalSince(entry.storedAt)
        let usable: PreviewResult? = switch entry.result {
        case .preview: age < configuration.cacheTTLSeconds + configuration.staleIfErrorSeconds ? entry.result : nil
        case .deleted: age < configuration.cacheTTLSeconds ? entry.result : nil
        case .unavailable: nil
        }
        if let failed = entry.failedAt, now.timeIntervalSince(failed) < configuration.failureBackoffSeconds {
            return (usable ?? .unavailable(reason: "origin failed \(Int(now.timeIntervalSince(failed)))s ago"), true)
        }
        guard let usable else { return nil }
        return (usable, age < configuration.cacheTTLSeconds)
    }

    /// The request URL: base URL + the template with each `{name}` replaced by the escaped param (everything but
    /// RFC 3986's unreserved characters escaped, `/` included). Nil when a param is missing, empty or over 256 bytes,
    /// or when the path would have a `.` or `..` segment — which the origin (or libcurl) would resolve to another
    /// path of the origin.
    func previewURL(params: [String: String]) -> String? {
        var path = ""
        var rest = Substring(configuration.previewPath)
        while let open = rest.firstIndex(of: "{") {
            path += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { return nil }
            let name = String(rest[rest.index(after: open)..<close])
            guard let value = params[name], !value.isEmpty, value.utf8.count <= 256 else { return nil }
            path += PageURL.queryEscaped(value)
            rest = rest[rest.index(after: close)...]
        }
        path += rest
        guard !path.split(separator: "/").contains(where: { DotSegment.matches($0) }) else { return nil }
        let base = configuration.baseURL.hasSuffix("/") ? String(configuration.baseURL.dropLast()) : configuration.baseURL
        return base + (path.hasPrefix("/") ? path : "/" + path)
    }

    private func fetch(_ startURL: String) async -> PreviewResult {
        guard let origin else { return .unavailable(reason: "bad origin base URL") }
        var url = startURL
        for _ in 0...configuration.maxRedirects {
            let request = OutboundRequest(
                url: url,
                limits: OutboundLimits(
                    connectTimeoutMilliseconds: configuration.connectTimeoutMilliseconds,
                    totalTimeoutMilliseconds: configuration.totalTimeoutMilliseconds,
                    maxResponseBytes: configuration.maxBodyBytes))
            switch await OutboundHTTP.perform(request) {
            case .failure(let failure) where failure.kind == .timedOut: return .unavailable(reason: "timed out")
            case .failure(let failure) where failure.kind == .tooLarge:
                return .unavailable(reason: "body larger than \(configuration.maxBodyBytes) bytes")
            case .failure(let failure): return .unavailable(reason: failure.message)
            case .success(let response):
                switch response.status {
                case 200: return PreviewDecoder.decode(response.body)
                case 404, 410: return .deleted
                case 301, 302, 303, 307, 308:
                    guard let next = response.redirectURL, Origin(next) == origin else {
                        return .unavailable(reason: "redirect outside the origin refused")
                    }
                    url = next
                default: return .unavailable(reason: "origin answered \(response.status)")
                }
            }
        }
        return .unavailable(reason: "more than \(configuration.maxRedirects) redirects")
    }
}

/// scheme + host + port, lowercased, with the default port filled in. The host is compared as written (IDNA
/// A-labels): `URLComponents.host` decodes IDNA through ICU, which loads its data.
struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.encodedHost?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }
}

/// A bounded map from URL to the last result, oldest evicted first.
struct PreviewCache {
    struct Entry {
        var result: PreviewResult
        var storedAt: Date
        /// When the last fetch failed, if it did after `storedAt`.
        var failedAt: Date?
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var order: [String] = []

    init(capacity: Int) { self.capacity = capacity }

    func entry(for url: String) -> Entry? { entries[url] }

    /// Notes a failed fetch (keeping any result stored before it).
    mutating func markFailed(_ url: String, at date: Date) {
        if entries[url] == nil {
            store(.unavailable(reason: "origin failed"), for: url, at: .distantPast)
        }
        entries[url]?.failedAt = date
    }

    var count: Int { entries.count }

    mutating func store(_ result: PreviewResult, for url: String, at date: Date) {
        if entries[url] == nil { order.append(url) }
        entries[url] = Entry(result: result, storedAt: date, failedAt: nil)
        while entries.count > capacity, !order.isEmpty {
            entries[order.removeFirst()] = nil
        }
    }
}
