/// The ACME problem types the client acts on or explains (RFC 8555 §6.7), and the `ACMEError` of a refusal.
enum ProblemTypes {
    /// The prefix of every ACME problem type.
    static let prefix = "urn:ietf:params:acme:error:"
    /// The nonce was stale or unknown: retried once with a fresh one.
    static let badNonce = prefix + "badNonce"

    /// What to do about a problem type, when there is a known answer.
    private static let hints: [String: String] = [
        "rateLimited": "the CA's rate limit was hit: wait (see the CA's rate-limit documentation) before trying again",
        "rejectedIdentifier": "the CA will not issue for this name",
        "unsupportedIdentifier": "the CA will not issue for this kind of name",
        "accountDoesNotExist": "the account URL is unknown to the CA: create the account again with the same key",
        "unauthorized": "the account may not do this (a deactivated account, or another account's resource)",
        "userActionRequired": "the CA's terms of service changed: read them and agree again",
        "externalAccountRequired": "this CA needs external account binding, which this client does not do",
        "badPublicKey": "the CA refused the key",
        "badCSR": "the CA refused the certificate request",
        "serverInternal": "the CA failed; try again later",
        "caa": "a CAA DNS record forbids this CA from issuing for the name",
        "dns": "the CA could not resolve the name: check its DNS records",
        "connection": "the CA could not connect to the host on port 80",
        "incorrectResponse": "the host answered the challenge with something other than the key authorization",
        "unauthorizedFile": "the host did not serve the key authorization",
    ]

    /// The `problem` error for a refused request (`badResponse` when the body is not a problem document).
    static func error(_ problem: Resources.Problem?, status: Int, what: String) -> ACMEError {
        guard let problem else {
            return ACMEError(.badResponse, "\(what): the CA answered \(status) without a problem document", status: status)
        }
        return ACMEError(.problem, message(problem, what: what, status: status), problemType: problem.type,
                         problemDetail: problem.detail, status: status)
    }

    /// `what: the CA refused (status type): detail — hint`.
    static func message(_ problem: Resources.Problem, what: String, status: Int?) -> String {
        let type = problem.type ?? "no type"
        let short = type.hasPrefix(prefix) ? String(type.dropFirst(prefix.count)) : type
        let hint = hints[short].map { " — \($0)" } ?? ""
        let statusText = status.map { "\($0) " } ?? ""
        return "\(what): the CA refused (\(statusText)\(short)): \(problem.summary)\(hint)"
    }
}
