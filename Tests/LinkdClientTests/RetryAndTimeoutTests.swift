import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LinkdClient
import LinkdTestSupport
import Testing

/// Retries that honour `Retry-After` within their bounds, only for calls that are safe to repeat, and time limits:
/// the real daemon's rate limit and connection cap, a scripted server for the rest, and a server that never answers.
@Suite("LinkdClient retries and time limits", .serialized)
struct RetryAndTimeoutTests {
    static let url = URL(string: "https://links.handz.example/library")!

    /// Seconds since `start`.
    static func elapsed(since start: ContinuousClock.Instant) -> Double {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    @Test("a 429 from the daemon's rate limit: the client waits Retry-After, then gets its answer; with no retries, or a wait over its budget, it throws at once carrying Retry-After")
    func rateLimitHonoured() async throws {
        // One token, back after 5 s: every call below starts well within that window.
        let daemon = try await ClientDaemon.start(configuration: "rateLimitPerSecond: 0.2\nrateLimitBurst: 1\n")
        defer { daemon.stop() }
        #expect(try await daemon.client().resolve(Self.url, state: "free").route == "Library/Home")

        // No retries: the 429 itself, with its Retry-After.
        do throws(LinkdClientError) {
            _ = try await daemon.client(configuration: .init(retry: .never)).resolve(Self.url, state: "free")
            Issue.record("no 429")
        } catch {
            #expect(error.serverError?.code == .rateLimited && error.serverError?.status == 429)
            #expect((error.serverError?.retryAfter).map { $0 >= .seconds(1) && $0 <= .seconds(5) } == true, "\(error)")
        }
        // A budget smaller than Retry-After: thrown at once, not waited.
        let budgeted = daemon.client(configuration: .init(retry: RetryPolicy(maxAttempts: 5, maxTotalWait: .milliseconds(500))))
        let budgetStart = ContinuousClock.now
        do throws(LinkdClientError) {
            _ = try await budgeted.resolve(Self.url, state: "free")
            Issue.record("no 429")
        } catch {
            #expect(error.serverError?.code == .rateLimited)
        }
        #expect(Self.elapsed(since: budgetStart) < 0.5, "Retry-After over the budget is not waited")

        // The default policy: 429, Retry-After waited out, then answered.
        let start = ContinuousClock.now
        let again = try await daemon.client().resolve(Self.url, state: "free")
        let waited = Self.elapsed(since: start)
        #expect(again.route == "Library/Home")
        #expect(waited >= 0.9 && waited < 8, "waited \(waited) s for Retry-After")
    }

    @Test("503 too_many_connections from the daemon's connection cap: refused before it was read, so even a claim is retried after Retry-After")
    func connectionCapRetried() async throws {
        let daemon = try await ClientDaemon.start(configuration: "maxConnectionsPerClient: 2\n")
        defer { daemon.stop() }
        let held = Held(try [RawConnection(port: daemon.port), RawConnection(port: daemon.port)])
        try await Task.sleep(for: .milliseconds(100))
        let release = Task {
            try await Task.sleep(for: .milliseconds(400))
            held.release()
        }
        let start = ContinuousClock.now
        let resolution = try await daemon.client().resolve(Self.url, state: "free")
        #expect(resolution.route == "Library/Home")
        #expect(Self.elapsed(since: start) >= 0.9, "Retry-After: 1 was waited")
        try await release.value
    }

    @Test("the scripted failures: resolve is retried after 503 store_unavailable with backoff, a claim is not; attempts are bounded")
    func safetyAndBounds() async throws {
        let unavailable = ScriptedServer.Reply.answer(status: 503, headers: ["Content-Type": "application/json"],
                                                      body: #"{"error":{"code":"store_unavailable","message":"retry later"}}"#)
        let resolution = #"{"outcome":"route","route":"Library/Home","params":{},"tabBarVisible":true,"stack":["Tab/Library"],"returnTo":{},"tab":"library","presentation":"push"}"#
        let server = try ScriptedServer { index in
            index == 0 ? unavailable : .answer(status: 200, headers: ["Content-Type": "application/json"], body: resolution)
        }
        defer { server.stop() }
        let client = LinkdClient(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral))
        #expect(try await client.resolve(Self.url, state: "free").route == "Library/Home")
        #expect(server.requests.count == 2, "resolve retried once")

        let claims = try ScriptedServer { _ in unavailable }
        defer { claims.stop() }
        let claimer = LinkdClient(baseURL: claims.baseURL, session: URLSession(configuration: .ephemeral))
        do throws(LinkdClientError) {
            _ = try await claimer.claim(code: "AAAAAAAAAAAAAAAAAAAAAA", state: "signedOut")
            Issue.record("no error")
        } catch {
            #expect(error.serverError?.code == .storeUnavailable)
        }
        #expect(claims.requests.count == 1, "a claim is not retried after an answer that may have spent it")
        #expect(claims.requests.first?.hasPrefix("POST /v1/claims/AAAAAAAAAAAAAAAAAAAAAA HTTP/1.1") == true)

        let limited = try ScriptedServer { _ in
            .answer(status: 429, headers: ["Retry-After": "0", "Content-Type": "application/json"], body: #"{"error":{"code":"rate_limited","message":"slow down"}}"#)
        }
        defer { limited.stop() }
        for (call, policy) in [("resolve", RetryPolicy(maxAttempts: 4)), ("claim", RetryPolicy(maxAttempts: 3))] {
            let before = limited.requests.count
            let client = LinkdClient(baseURL: limited.baseURL, session: URLSession(configuration: .ephemeral), configuration: .init(retry: policy))
            do throws(LinkdClientError) {
                if call == "resolve" { _ = try await client.resolve(Self.url, state: "free") } else {
                    _ = try await client.claim(code: "AAAAAAAAAAAAAAAAAAAAAA", state: "signedOut")
                }
                Issue.record("no error")
            } catch {
                #expect(error.serverError?.code == .rateLimited)
            }
            #expect(limited.requests.count - before == policy.maxAttempts, "\(call): a 429 is retried, \(policy.maxAttempts) attempts at most")
        }
    }

    @Test("a server that never answers: the call ends at its time limit; resolve is retried within it, a claim is not")
    func neverAnswers() async throws {
        let server = try ScriptedServer { _ in .silence }
        defer { server.stop() }
        let once = LinkdClient(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
                               configuration: .init(timeout: .milliseconds(500), retry: .never))
        var start = ContinuousClock.now
        do throws(LinkdClientError) {
            _ = try await once.resolve(Self.url, state: "free")
            Issue.record("no timeout")
        } catch {
            #expect(error == .timedOut(.milliseconds(500)), "\(error)")
        }
        var waited = Self.elapsed(since: start)
        #expect(waited >= 0.45 && waited < 3, "\(waited) s")
        #expect(server.requests.count == 1)

        let twice = LinkdClient(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
                                configuration: .init(timeout: .milliseconds(500), retry: RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(100))))
        start = ContinuousClock.now
        do throws(LinkdClientError) {
            _ = try await twice.resolve(Self.url, state: "free")
            Issue.record("no timeout")
        } catch {
            guard case .timedOut = error else { Issue.record("\(error)"); return }
        }
        waited = Self.elapsed(since: start)
        #expect(waited >= 1.0 && waited < 5, "\(waited) s: two attempts of 0.5 s and a 0.1 s backoff")
        #expect(server.requests.count == 3)

        do throws(LinkdClientError) {
            _ = try await twice.claim(code: "AAAAAAAAAAAAAAAAAAAAAA", state: "signedOut")
            Issue.record("no timeout")
        } catch {
            guard case .timedOut = error else { Issue.record("\(error)"); return }
        }
        #expect(server.requests.count == 4, "a claim that timed out may have been spent: not retried")
    }

    @Test("the caller's cancellation ends a call at once, and it is not retried")
    func cancelled() async throws {
        let server = try ScriptedServer { _ in .silence }
        defer { server.stop() }
        let client = LinkdClient(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral),
                                 configuration: .init(timeout: .seconds(20)))
        let start = ContinuousClock.now
        let call = Task { try await client.resolve(Self.url, state: "free") }
        try await Task.sleep(for: .milliseconds(300))
        call.cancel()
        switch await call.result {
        case .success: Issue.record("answered")
        case .failure(let error):
            guard case .transport(let code, _)? = error as? LinkdClientError else { Issue.record("\(error)"); break }
            #expect(code == URLError.Code.cancelled.rawValue)
        }
        #expect(Self.elapsed(since: start) < 2, "ended at the cancellation, not at the 20 s limit")
        #expect(server.requests.count <= 1)
    }

    @Test("nothing listens: a transport error, not a hang")
    func nothingListens() async throws {
        let server = try ScriptedServer { _ in .silence }
        let port = server.port
        server.stop()
        let client = LinkdClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, session: URLSession(configuration: .ephemeral),
                                 configuration: .init(timeout: .seconds(2), retry: .never))
        do throws(LinkdClientError) {
            _ = try await client.resolve(Self.url, state: "free")
            Issue.record("no error")
        } catch {
            guard case .transport = error else { Issue.record("\(error)"); return }
        }
    }
}

/// Connections held open until `release`.
final class Held: @unchecked Sendable {
    private let lock = NSLock()
    private var connections: [RawConnection]

    init(_ connections: [RawConnection]) { self.connections = connections }

    /// Closes them.
    func release() { lock.withLock { connections = [] } }
}
