import Foundation
import OutboundHTTP

extension ACMEClient {
    /// The order's steps (RFC 8555 §7.4); `published` collects the tokens to withdraw.
    func issue(
        hosts: [String], session: ACMESession, key: ACMEAccountKey, accountURL: String, challenges: some HTTP01Responder,
        published: inout [String]
    ) async throws -> IssuedCertificate {
        let signer = JWS.Signer.kid(accountURL)
        let newOrder = Resources.NewOrder(identifiers: hosts.map { Resources.Identifier(type: "dns", value: $0) })
        let created = try await session.post(
            session.directory.newOrder, payload: Array(try JWS.encoder.encode(newOrder)), signer: signer, key: key,
            what: "ordering a certificate for \(hosts.joined(separator: ", "))")
        guard let orderURL = created.header("Location"), !orderURL.isEmpty else {
            throw ACMEError(.badResponse, "the CA created the order but sent no Location (order URL)", status: created.status)
        }
        var order = try session.decode(Resources.Order.self, from: created, what: "the new order")
        for authorizationURL in order.authorizations {
            try await authorize(authorizationURL, session: session, key: key, accountURL: accountURL, challenges: challenges,
                                published: &published)
        }
        order = try await session.poll(orderURL, as: Resources.Order.self, key: key, accountURL: accountURL,
                                       what: "waiting for the order to be ready") { $0.status != "pending" }
        let request = try CertificateRequest(hosts: hosts)
        if order.status == "ready" {
            try session.checkOrigin(order.finalize)
            let finalize = try JWS.encoder.encode(Resources.Finalize(csr: request.base64url))
            let answer = try await session.post(order.finalize, payload: Array(finalize), signer: signer, key: key,
                                                what: "finalizing the order")
            order = try session.decode(Resources.Order.self, from: answer, what: "the finalized order")
        }
        order = try await session.poll(orderURL, as: Resources.Order.self, key: key, accountURL: accountURL,
                                       what: "waiting for the certificate") { $0.status != "processing" && $0.status != "ready" }
        guard order.status == "valid", let certificateURL = order.certificate else {
            let reason = order.error.map { ProblemTypes.message($0, what: "the order", status: nil) } ?? "no reason given"
            throw ACMEError(.orderFailed, "the order ended \(order.status) instead of issuing a certificate: \(reason)",
                            problemType: order.error?.type, problemDetail: order.error?.detail)
        }
        let chain = try await session.post(certificateURL, payload: [], signer: signer, key: key,
                                           accept: "application/pem-certificate-chain", what: "downloading the certificate")
        let issued = try IssuedCertificate.parse(
            chainPEM: String(decoding: chain.body, as: UTF8.self), key: request.key, privateKeyPEM: try request.key.privateKeyPEM())
        let missing = hosts.filter { !issued.hosts.contains($0) }
        guard missing.isEmpty else {
            throw ACMEError(.certificate, "the issued certificate does not name \(missing.joined(separator: ", "))")
        }
        return issued
    }

    /// Proves one authorization by HTTP-01, unless it is valid already (the CA may reuse one).
    private func authorize(
        _ url: String, session: ACMESession, key: ACMEAccountKey, accountURL: String, challenges: some HTTP01Responder,
        published: inout [String]
    ) async throws {
        let fetched = try await session.post(url, payload: [], signer: .kid(accountURL), key: key, what: "fetching an authorization")
        let authorization = try session.decode(Resources.Authorization.self, from: fetched, what: "an authorization")
        let host = authorization.identifier.value
        switch authorization.status {
        case "valid": return
        case "pending": break
        default:
            throw ACMEError(.challengeFailed, "the authorization for \(host) is \(authorization.status), not pending: order again")
        }
        guard let challenge = authorization.challenges.first(where: { $0.type == "http-01" }) else {
            let offered = authorization.challenges.map(\.type).joined(separator: ", ")
            throw ACMEError(.challengeFailed, "the CA offers no http-01 challenge for \(host) (only \(offered))")
        }
        guard let token = challenge.token, Self.isToken(token) else {
            throw ACMEError(.badResponse, "the http-01 challenge for \(host) has no usable token")
        }
        try session.checkOrigin(challenge.url)
        await challenges.publish(token: token, keyAuthorization: key.keyAuthorization(token: token))
        published.append(token)
        if challenge.status == "pending" {
            _ = try await session.post(challenge.url, payload: Array("{}".utf8), signer: .kid(accountURL), key: key,
                                       what: "asking the CA to validate \(host)")
        }
        let done = try await session.poll(url, as: Resources.Authorization.self, key: key, accountURL: accountURL,
                                          what: "waiting for the CA to validate \(host)") { $0.status != "pending" }
        guard done.status == "valid" else {
            let failed = done.challenges.first { $0.type == "http-01" }?.error
            let reason = failed.map { ProblemTypes.message($0, what: "http-01", status: nil) } ?? "no reason given"
            throw ACMEError(
                .challengeFailed,
                "the CA could not validate \(host) (authorization \(done.status)): \(reason). It fetches "
                    + "http://\(host)\(HTTP01Challenges.pathPrefix)\(token): the name must reach this daemon's plain HTTP listener on port 80",
                problemType: failed?.type, problemDetail: failed?.detail)
        }
    }

    /// A token is base64url (RFC 8555 §8.3): safe in a URL path.
    static func isToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 256 && Base64URLAlphabet.contains(token)
    }
}

/// The base64url alphabet.
enum Base64URLAlphabet {
    /// True when every character of `text` is `A-Z a-z 0-9 - _`.
    static func contains(_ text: String) -> Bool {
        text.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }
}
