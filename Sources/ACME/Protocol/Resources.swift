/// The ACME resources the client reads (RFC 8555 §7.1), only the fields it uses.
enum Resources {
    /// The directory (§7.1.1).
    struct Directory: Decodable {
        let newNonce: String
        let newAccount: String
        let newOrder: String
    }

    /// An identifier (§9.7.7): `dns` and a host name.
    struct Identifier: Codable {
        let type: String
        let value: String
    }

    /// An order (§7.1.3).
    struct Order: Decodable {
        let status: String
        let authorizations: [String]
        let finalize: String
        let certificate: String?
        let error: Problem?
    }

    /// An authorization (§7.1.4).
    struct Authorization: Decodable {
        let status: String
        let identifier: Identifier
        let challenges: [Challenge]
    }

    /// A challenge (§7.1.5, §8.3).
    struct Challenge: Decodable {
        let type: String
        let url: String
        let status: String
        let token: String?
        let error: Problem?
    }

    /// An RFC 7807 problem document (§6.7).
    struct Problem: Decodable {
        let type: String?
        let detail: String?
        let status: Int?
        let subproblems: [Subproblem]?

        /// A problem about one identifier (§6.7.1).
        struct Subproblem: Decodable {
            let type: String?
            let detail: String?
            let identifier: Identifier?
        }

        /// `detail` with each subproblem's, for messages.
        var summary: String {
            var text = detail ?? type ?? "no detail given"
            for sub in subproblems ?? [] {
                text += "; \(sub.identifier?.value ?? "?"): \(sub.detail ?? sub.type ?? "no detail")"
            }
            return text
        }
    }

    /// The `newAccount` payload (§7.3).
    struct NewAccount: Encodable {
        let termsOfServiceAgreed: Bool
        let contact: [String]?
    }

    /// The `newOrder` payload (§7.4).
    struct NewOrder: Encodable {
        let identifiers: [Identifier]
    }

    /// The `finalize` payload (§7.4).
    struct Finalize: Encodable {
        let csr: String
    }
}
