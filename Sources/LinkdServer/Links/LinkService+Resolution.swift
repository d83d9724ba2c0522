import Foundation
import LinkdHTTP
import PrintableText
import LinkRouter
import LinkStore
import TokenSigning

/// Resolution of URLs and calendar files, with share tokens looked up in the link records.
extension LinkService {
    /// `Router.resolve` with share tokens looked up here: the router stays pure; a token whose record is not
    /// cached is loaded and the URL resolved once more.
    func resolve(url: String, state: String?, app: String?, client: ClientApp? = nil, now: Date = Date()) async -> Resolution {
        let router = self.router
        var verified = VerifiedTokens()
        var url = url
        var (first, missing) = resolveOnce(url: url, state: state, app: app, client: client, now: now, router: router, verified: &verified)
        // No route took it: a link's custom path resolves as the link's short URL.
        if missing.isEmpty, first.outcome == .notFound {
            var pathMissing: [String] = []
            var target = customPathTarget(url, resolution: first, missing: &pathMissing)
            if target == nil {
                for key in pathMissing { await load(key) }
                var unused: [String] = []
                target = customPathTarget(url, resolution: first, missing: &unused)
            }
            if let target, target != url {
                url = target
                (first, missing) = resolveOnce(url: url, state: state, app: app, client: client, now: now, router: router, verified: &verified)
            }
        }
        guard !missing.isEmpty else { return finish(first) }
        for key in missing { await load(key) }
        return finish(resolveOnce(url: url, state: state, app: app, client: client, now: now, router: router, verified: &verified).resolution)
    }

    /// The resolution when every share token in the URL is decided from memory; nil (and nothing recorded) when a
    /// link record must be read first, which `resolve` does.
    func resolveInMemory(url: String, state: String?, app: String?, client: ClientApp? = nil, now: Date = Date()) -> Resolution? {
        var verified = VerifiedTokens()
        var (resolution, missing) = resolveOnce(
            url: url, state: state, app: app, client: client, now: now, router: router, verified: &verified, recordFirst: true)
        if missing.isEmpty, resolution.outcome == .notFound {
            var pathMissing: [String] = []
            guard let target = customPathTarget(url, resolution: resolution, missing: &pathMissing) else { return nil }
            if target != url {
                (resolution, missing) = resolveOnce(
                    url: target, state: state, app: app, client: client, now: now, router: router, verified: &verified, recordFirst: true)
            }
        }
        return missing.isEmpty ? finish(resolution) : nil
    }

    /// Resolves every item of an `.ics` file, share tokens included. Each item's resolution is counted as a
    /// resolve endpoint's is (outcome, and its share token's verdict); an item no rule maps counts nothing.
    func resolveCalendar(_ bytes: [UInt8], state: String?, app: String?, now: Date = Date()) async throws -> CalendarReport {
        let resolver = CalendarResolver(router: router)
        var missing: [String] = []
        var verified = VerifiedTokens()
        let first = try resolver.resolve(bytes, state: state, app: app) { query in
            lookup(query, now: now, verified: &verified) { missing.append($0) }
        }
        let report: CalendarReport
        if missing.isEmpty {
            report = first
        } else {
            for key in missing { await load(key) }
            report = try resolver.resolve(bytes, state: state, app: app) { query in lookup(query, now: now, verified: &verified) { _ in } }
        }
        for item in report.items {
            guard let resolution = item.resolution else { continue }
            metrics.recordResolution(resolution)
            metrics.recordTokenVerdict(of: resolution)
        }
        return report
    }

    /// The resolution with share tokens decided from memory, and the ids of the link records that were not cached.
    private func resolveOnce(
        url: String, state: String?, app: String?, client: ClientApp?, now: Date, router: Router, verified: inout VerifiedTokens,
        recordFirst: Bool = false
    ) -> (resolution: Resolution, missing: [String]) {
        var missing: [String] = []
        let resolution = router.resolve(url: url, state: state, app: app, client: client) { query in
            lookup(query, now: now, verified: &verified, recordFirst: recordFirst) { missing.append($0) }
        }
        return (resolution, missing)
    }

    private func lookup(
        _ query: ShareLinkQuery, now: Date, verified: inout VerifiedTokens, recordFirst: Bool = false, onMiss: (String) -> Void
    ) -> LinkStatus {
        switch memoryStatus(token: query.token, app: query.app, now: now, verified: &verified, recordFirst: recordFirst) {
        case .decided(let status, _): return status
        case .needsRecord(let id):
            onMiss(id)
            return .unknown
        }
    }

    /// Counts the final resolution (outcome, and the verdict of its share token if it had one): only once the
    /// answer is decided, so a resolution redone after a store read counts once.
    private func finish(_ resolution: Resolution) -> Resolution {
        metrics.recordResolution(resolution)
        metrics.recordTokenVerdict(of: resolution)
        return resolution
    }
}
