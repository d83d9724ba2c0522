/// Where the ACME client puts HTTP-01 key authorizations for the CA to fetch at
/// `http://<host>/.well-known/acme-challenge/<token>` (RFC 8555 §8.3). `HTTP01Challenges` is the in-memory one.
public protocol HTTP01Responder: Sendable {
    /// Starts answering `token` with `keyAuthorization` (as the body, `text/plain` or `application/octet-stream`).
    func publish(token: String, keyAuthorization: String) async
    /// Stops answering `token`.
    func withdraw(token: String) async
}
