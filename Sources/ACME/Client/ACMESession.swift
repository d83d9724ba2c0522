import Foundation
import OutboundHTTP

/// One conversation with the CA, for one `ACMEClient` call: the directory, the latest replay nonce, signed POSTs
/// (with the one `badNonce` retry) and polling. Used by one task at a time.
final class ACMESession {
    let configuration: ACMEClientConfiguration
    let directory: Resources.Directory
    private let origin: Origin
    /// The next nonce to use (the last one the CA sent), or nil: one is fetched from `newNonce`.
    var nonce: String?

    private init(configuration: ACMEClientConfiguration, origin: Origin, directory: Resources.Directory) {
        self.configuration = configuration
        self.origin = origin
        self.directory = directory
    }

    /// Fetches the directory: `network`/`timeout` when the server cannot be reached, `directory` when what answers
    /// is not an ACME directory, `invalidArgument` for a URL that is not `https://host…`.
    static func open(_ configuration: ACMEClientConfiguration) async throws -> ACMESession {
        let url = configuration.directoryURL
        guard let origin = Origin(url) else {
            throw ACMEError(.invalidArgument, "the ACME directory URL \(url.debugDescription) is not an https:// URL with a host")
        }
        let response = try await send(
            OutboundRequest(url: url, headers: [OutboundHeader("Accept", "application/json")], limits: outboundLimits(configuration),
                            allowedSchemes: "https", caCertificatesFile: configuration.caCertificatesFile),
            what: "fetching the ACME directory \(url)", limits: configuration.limits)
        guard response.status == 200 else {
            throw ACMEError(.directory, "\(url) answered \(response.status), not an ACME directory: check directoryURL", status: response.status)
        }
        guard let directory = try? JSONDecoder().decode(Resources.Directory.self, from: Data(response.body)) else {
            throw ACMEError(.directory, "\(url) did not answer with an ACME directory (JSON with newNonce, newAccount, newOrder): check directoryURL")
        }
        let session = ACMESession(configuration: configuration, origin: origin, directory: directory)
        for resource in [directory.newNonce, directory.newAccount, directory.newOrder] { try session.checkOrigin(resource) }
        return session
    }

    /// A signed POST of `payload` (JSON bytes; empty: POST-as-GET) to `url`. A 2xx answer is returned; a
    /// `badNonce` problem is retried once with the fresh nonce; any other error status is a `problem`.
    func post(_ url: String, payload: [UInt8], signer: JWS.Signer, key: ACMEAccountKey, accept: String? = nil, what: String)
        async throws -> OutboundResponse
    {
        try checkOrigin(url)
        var retried = false
        while true {
            let jws = try JWS(payload: payload, url: url, nonce: try await takeNonce(), signer: signer, key: key)
            var headers = [OutboundHeader("Content-Type", "application/jose+json")]
            if let accept { headers.append(OutboundHeader("Accept", accept)) }
            let response = try await Self.send(request(method: "POST", url: url, headers: headers, body: try jws.body()), what: what,
                                               limits: configuration.limits)
            if let fresh = response.header("Replay-Nonce"), !fresh.isEmpty { nonce = fresh }
            if (200..<300).contains(response.status) { return response }
            let problem = try? JSONDecoder().decode(Resources.Problem.self, from: Data(response.body))
            if problem?.type == ProblemTypes.badNonce, !retried {
                retried = true
                continue
            }
            throw ProblemTypes.error(problem, status: response.status, what: what)
        }
    }

    /// Fetches `url` (POST-as-GET) until `isDone` holds, waiting `Retry-After` (bounded) or the poll interval
    /// between fetches; `timeout` after `maxPolls` fetches.
    func poll<Resource: Decodable>(_ url: String, as type: Resource.Type, key: ACMEAccountKey, accountURL: String, what: String,
                                    until isDone: (Resource) -> Bool) async throws -> Resource {
        let limits = configuration.limits
        for attempt in 1...max(1, limits.maxPolls) {
            let response = try await post(url, payload: [], signer: .kid(accountURL), key: key, what: what)
            let resource = try decode(Resource.self, from: response, what: what)
            if isDone(resource) { return resource }
            if attempt < limits.maxPolls { try await Task.sleep(for: .milliseconds(waitBeforePoll(response))) }
        }
        throw ACMEError(.timeout, "\(what): still in progress after \(limits.maxPolls) polls; the CA is slow or stuck, try again later")
    }

    /// The wait `Retry-After` asks for (delay-seconds), capped; else the poll interval.
    func waitBeforePoll(_ response: OutboundResponse) -> Int {
        let limits = configuration.limits
        guard let text = response.header("Retry-After"), let seconds = Int(text), seconds >= 0 else {
            return limits.pollIntervalMilliseconds
        }
        return min(seconds.multipliedReportingOverflow(by: 1000).overflow ? Int.max : seconds * 1000, limits.maxRetryAfterMilliseconds)
    }

    /// The response's JSON as `type`; `badResponse` otherwise.
    func decode<Resource: Decodable>(_ type: Resource.Type, from response: OutboundResponse, what: String) throws -> Resource {
        do {
            return try JSONDecoder().decode(Resource.self, from: Data(response.body))
        } catch {
            throw ACMEError(.badResponse, "\(what): the CA's answer is not the JSON RFC 8555 describes (\(error))", status: response.status)
        }
    }

    /// Refuses a URL outside the directory's scheme, host and port (`badResponse`): the client talks to its CA only.
    func checkOrigin(_ url: String) throws {
        guard Origin(url) == origin else {
            throw ACMEError(.badResponse, "the CA sent a URL on another host (\(url)); only \(origin) is used")
        }
    }

    /// A fresh nonce: the last one the CA sent, else one from `newNonce`.
    private func takeNonce() async throws -> String {
        if let nonce {
            self.nonce = nil
            return nonce
        }
        let response = try await Self.send(request(method: "HEAD", url: directory.newNonce), what: "getting a nonce", limits: configuration.limits)
        guard (200..<300).contains(response.status), let fresh = response.header("Replay-Nonce"), !fresh.isEmpty else {
            throw ACMEError(.badResponse, "\(directory.newNonce) gave no Replay-Nonce (status \(response.status))", status: response.status)
        }
        return fresh
    }

    private func request(method: String, url: String, headers: [OutboundHeader] = [], body: [UInt8] = []) -> OutboundRequest {
        OutboundRequest(
            method: method, url: url, headers: headers, body: body, limits: Self.outboundLimits(configuration), allowedSchemes: "https",
            usesEnvironmentProxy: false, caCertificatesFile: configuration.caCertificatesFile)
    }

    private static func outboundLimits(_ configuration: ACMEClientConfiguration) -> OutboundLimits {
        let total = max(1, configuration.limits.requestTimeoutMilliseconds)
        return OutboundLimits(connectTimeoutMilliseconds: min(total, 10_000), totalTimeoutMilliseconds: total,
                              maxResponseBytes: configuration.limits.maxResponseBytes)
    }

    /// Performs `request`; a failure to get any answer is `timeout` or `network` (`badResponse` past the cap).
    private static func send(_ request: OutboundRequest, what: String, limits: ACMEClientConfiguration.Limits) async throws
        -> OutboundResponse
    {
        switch await OutboundHTTP.perform(request) {
        case .success(let response): return response
        case .failure(let failure):
            switch failure.kind {
            case .timedOut:
                throw ACMEError(.timeout, "\(what): no answer within \(limits.requestTimeoutMilliseconds) ms (\(failure.message))")
            case .tooLarge:
                throw ACMEError(.badResponse, "\(what): the answer is larger than \(limits.maxResponseBytes) bytes")
            case .tls:
                throw ACMEError(.network, "\(what): TLS failed (\(failure.message)); for a private CA set caCertificatesFile")
            default:
                throw ACMEError(.network, "\(what): \(failure.message); check the URL and the network")
            }
        }
    }
}

/// A URL's scheme, host and port, for keeping every request on the directory's server.
struct Origin: Equatable, CustomStringConvertible {
    let host: String
    let port: Int

    /// The origin of an `https://` URL with a host; nil for anything else.
    init?(_ url: String) {
        guard let parts = URLComponents(string: url), parts.scheme?.lowercased() == "https", let host = parts.host, !host.isEmpty
        else { return nil }
        self.host = host.lowercased()
        self.port = parts.port ?? 443
    }

    /// `https://host:port`.
    var description: String { "https://\(host):\(port)" }
}
