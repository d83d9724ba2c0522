import Foundation
import FuzzSupport
import LinkRouter

/// The demo manifests (`examples/*.yaml`), compiled once.
private let router: Router = {
    let names = ["handz", "coin", "ordentus", "story"]
    do {
        return try Router(manifests: ManifestLoader.load(paths: names.map { "\(Fuzz.repositoryRoot)/examples/\($0).yaml" }))
    } catch {
        fatalError("the demo manifests do not load: \(error)")
    }
}()

/// `IncomingURL.parse` and `Router.resolve` over the demo manifests, on any text as the URL.
///
/// Invariants: parsing never traps, and a parsed URL is normalized (lowercase scheme and web host, no empty
/// segment, one spelling per segment, a port in range); resolving (as every state of the app that claims the URL,
/// and with every app named) opens only a declared route, with params the route declares, each a valid value of its
/// type; and `Resolution.jsonBytes()` is byte for byte what `JSONEncoder` writes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLRouter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let url = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    if case .success(let parsed) = IncomingURL.parse(url, maxBytes: router.limits.maxURLBytes) {
        checkParsed(parsed, url)
    }
    let claimant = router.app(for: url)
    let states = [nil] + (claimant.flatMap { router.manifest(app: $0)?.states } ?? []).map(Optional.some)
    for state in states {
        check(router.resolve(url: url, state: state), url)
    }
    for app in router.appIDs {
        check(router.resolve(url: url, state: nil, app: app), url)
    }
    return 0
}

/// A parsed URL is normalized.
private func checkParsed(_ parsed: IncomingURL, _ url: String) {
    let message = "parsed \(url.debugDescription) as \(parsed)"
    Fuzz.require(!parsed.scheme.isEmpty && !parsed.scheme.utf8.contains(where: { (65...90).contains($0) }), message)
    Fuzz.require(!parsed.isWeb || !parsed.host.utf8.contains(where: { (65...90).contains($0) }), message)
    Fuzz.require(!parsed.segments.contains(where: \.isEmpty), message)
    Fuzz.require(parsed.spellings == nil || parsed.spellings?.count == parsed.segments.count, message)
    Fuzz.require(parsed.port.map { (0...65_535).contains($0) } ?? true, message)
}

/// A resolution opens a declared route with declared, well-typed params, and its JSON is `JSONEncoder`'s.
private func check(_ resolution: Resolution, _ url: String) {
    let message = "\(url.debugDescription) → \(resolution)"
    if resolution.outcome == .route {
        checkParams(resolution.params, app: resolution.app, route: resolution.route, message)
    }
    if resolution.outcome == .intercept, let continuation = resolution.intercept?.continuation {
        checkParams(continuation.params, app: resolution.app, route: continuation.route, message)
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let foundation = (try? encoder.encode(resolution)).map(Array.init)
    Fuzz.require(foundation == resolution.jsonBytes(),
                 "jsonBytes \(String(decoding: resolution.jsonBytes(), as: UTF8.self)) ≠ JSONEncoder \(foundation.map { String(decoding: $0, as: UTF8.self) } ?? "nil")")
}

/// Every param is one the route declares in its patterns or query, with a value its type accepts.
private func checkParams(_ params: [String: String], app: String?, route: String?, _ message: String) {
    guard let app, let route, let declared = router.manifest(app: app)?.routes[route]?.declaredURLParams else {
        Fuzz.require(false, "an undeclared route: \(message)")
        return
    }
    for (name, value) in params {
        guard let spec = declared[name] else {
            Fuzz.require(false, "undeclared param '\(name)': \(message)")
            continue
        }
        Fuzz.require(spec.type.accepts(Substring(value)), "param '\(name)' is no \(spec.type.rawValue): \(message)")
    }
}
