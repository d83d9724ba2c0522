import ACME
import Foundation
import LinkdHTTP
import LinkRouter
import LinkStore
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization
import TokenSigning

/// Obtains and renews, from an ACME CA (RFC 8555, HTTP-01 on the plain listener), one certificate per app in force
/// covering all its hosts; hosts a manifest publish adds are picked up at the next check.
///
/// - Certificates and the account key are sealed with the master key in the store (`certificate/<app>`,
///   `acme-account`): every instance sharing it serves them (each loads the store's at every check).
/// - One instance orders at a time (the store lease `acme-order`); the others wait for its result.
/// - A certificate is renewed two thirds into its lifetime. A failed order is logged, counted
///   (`linkd_acme_orders_total{outcome="failed"}`) and retried after a backoff that doubles from
///   `retryBase` to six hours; the console's health page shows the last failure.
/// - It runs in a task of its own: requests only read the installed set (`TLSCertificates`) and the challenge
///   answers, never wait for an order.
struct ACMECertificateService: Service {
    let client: ACMEClient
    let store: StoreFront
    let apps: AppsInForce
    let certificates: TLSCertificates
    let challenges: ACMEChallengeAnswers
    let masterKey: MasterKey
    /// This instance, as the lease's holder.
    let holder: String
    let status: ACMEStatus
    let logger: Logger
    /// How often certificates and hosts are looked at.
    var checkInterval: Duration = .seconds(60)
    /// The first retry's delay after a failed order (doubling, at most six hours).
    var retryBase: TimeInterval = 30

    static let leaseName = "acme-order"
    static let accountName = "acme-account"

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await check(now: Date())
                try await Task.sleep(for: checkInterval)
            }
        }
    }

    /// One pass: install what the store holds, then order what is missing or due (when the lease is free).
    func check(now: Date) async {
        let stored = await loadStored()
        certificates.installIssued(stored.values.map(\.entry))
        for (app, hosts) in wantedHosts() {
            if let current = stored[app], Set(hosts).isSubset(of: current.entry.hosts), now < current.renewAt { continue }
            guard status.mayTry(app: app, now: now) else { continue }
            await order(app: app, hosts: hosts, now: now)
        }
    }

    /// Every app's hosts, sorted.
    private func wantedHosts() -> [(String, [String])] {
        apps.snapshot.router.manifests.map { ($0.app, Array(Set($0.hosts.map { $0.lowercased() })).sorted()) }
            .filter { !$0.1.isEmpty }
    }

    /// A stored certificate, opened, and when it is due for renewal (two thirds into its lifetime).
    struct Stored {
        let entry: TLSCertificates.Entry
        let renewAt: Date
    }

    private func loadStored() async -> [String: Stored] {
        guard let rows = try? await store.backend.tlsSecrets(prefix: "certificate/") else { return [:] }
        var out: [String: Stored] = [:]
        for row in rows {
            let app = String(row.name.dropFirst("certificate/".count))
            do {
                let pair = try JSONDecoder().decode(SealedPair.self, from: Data(try masterKey.open(Array(row.value), name: row.name)))
                // One reading of the chain and key: names, dates, the key checked against the leaf.
                let entry = try TLSCertificates.entry(chainPEM: pair.chain, keyPEM: pair.key, source: "acme")
                let lifetime = entry.notAfter.timeIntervalSince(entry.notBefore)
                out[app] = Stored(entry: entry, renewAt: entry.notBefore.addingTimeInterval(lifetime * 2 / 3))
                status.installed(app: app, hosts: entry.hosts, notAfter: entry.notAfter)
            } catch {
                logger.error("a stored certificate does not open", metadata: ["app": "\(app)", "error": "\(error)"])
            }
        }
        return out
    }

    /// The chain and key of a certificate, as sealed in the store.
    private struct SealedPair: Codable {
        let chain: String
        let key: String
    }

    /// Orders a certificate for `hosts` under the lease; the result is stored, installed and reported.
    private func order(app: String, hosts: [String], now: Date) async {
        do {
            guard try await store.backend.acquireLease(name: Self.leaseName, holder: holder, until: now.addingTimeInterval(600), now: now)
            else { return }  // another instance orders; its certificate is loaded at the next check
            defer { Task { try? await store.backend.releaseLease(name: Self.leaseName, holder: holder) } }
            let key = try await accountKey()
            let account = try await client.account(key: key)
            logger.notice("ordering a TLS certificate", metadata: ["app": "\(app)", "hosts": "\(hosts.joined(separator: ","))"])
            let issued = try await client.issueCertificate(hosts: hosts, accountKey: key, accountURL: account, challenges: challenges)
            let name = "certificate/" + app
            let sealed = try masterKey.seal(Array(try JSONEncoder().encode(SealedPair(chain: issued.certificateChainPEM, key: issued.privateKeyPEM))), name: name)
            try await store.backend.saveTLSSecret(StoredTLSSecret(name: name, value: Data(sealed), notAfter: issued.notAfter, updated: Date()))
            status.issued(app: app, hosts: issued.hosts, notAfter: issued.notAfter)
            certificates.installIssued(await loadStored().values.map(\.entry))
            logger.notice("TLS certificate issued", metadata: [
                "app": "\(app)", "hosts": "\(issued.hosts.joined(separator: ","))", "notAfter": "\(issued.notAfter)",
            ])
        } catch {
            let delay = status.failed(app: app, error: "\(error)", now: now, base: retryBase)
            logger.error("TLS certificate order failed", metadata: [
                "app": "\(app)", "error": "\(error)", "retryInSeconds": "\(Int(delay))",
            ])
        }
    }

    /// The account key from the store (sealed), made and stored on first use.
    private func accountKey() async throws -> ACMEAccountKey {
        if let row = try await store.backend.tlsSecrets(prefix: Self.accountName).first(where: { $0.name == Self.accountName }) {
            return try ACMEAccountKey(privateKeyPEM: String(decoding: try masterKey.open(Array(row.value), name: Self.accountName), as: UTF8.self))
        }
        let key = try ACMEAccountKey.generate()
        let sealed = try masterKey.seal(Array(key.privateKeyPEM.utf8), name: Self.accountName)
        try await store.backend.saveTLSSecret(StoredTLSSecret(name: Self.accountName, value: Data(sealed), updated: Date()))
        return key
    }
}

/// What the ACME service did, per app, for the console and the metrics: the certificate in use, the last failure,
/// when it tries again.
final class ACMEStatus: Sendable {
    /// One app's state.
    struct App: Sendable {
        var hosts: [String] = []
        var notAfter: Date?
        var lastError: String?
        var failures = 0
        var nextAttempt: Date?
    }

    private let apps = Mutex<[String: App]>([:])
    private let issuedCounter: Counter?
    private let failedCounter: Counter?
    private let registry: PrometheusCollectorRegistry?

    /// Reports into `registry` (`linkd_acme_orders_total{outcome}`, `linkd_tls_certificate_expiry_seconds{app}`).
    init(registry: PrometheusCollectorRegistry?) {
        self.registry = registry
        issuedCounter = registry?.counter(.acmeOrders, labels: [("outcome", "issued")])
        failedCounter = registry?.counter(.acmeOrders, labels: [("outcome", "failed")])
    }

    /// Every app's state, by app.
    var all: [String: App] { apps.withLock { $0 } }

    func mayTry(app: String, now: Date) -> Bool {
        apps.withLock { $0[app]?.nextAttempt.map { now >= $0 } ?? true }
    }

    func installed(app: String, hosts: [String], notAfter: Date) {
        apps.withLock { state in
            state[app, default: App()].hosts = hosts
            state[app, default: App()].notAfter = notAfter
        }
        registry?.gauge(.tlsCertificateExpiry, labels: [("app", app)]).set(notAfter.timeIntervalSince1970)
    }

    func issued(app: String, hosts: [String], notAfter: Date) {
        apps.withLock { $0[app] = App(hosts: hosts, notAfter: notAfter) }
        issuedCounter?.increment()
        installed(app: app, hosts: hosts, notAfter: notAfter)
    }

    /// Records a failure; the seconds until the next attempt (`base` doubled per failure in a row, at most 6 h).
    func failed(app: String, error: String, now: Date, base: TimeInterval) -> TimeInterval {
        failedCounter?.increment()
        return apps.withLock { state in
            var entry = state[app, default: App()]
            entry.failures += 1
            entry.lastError = error
            let delay = min(base * pow(2, Double(entry.failures - 1)), 6 * 3600)
            entry.nextAttempt = now.addingTimeInterval(delay)
            state[app] = entry
            return delay
        }
    }
}
