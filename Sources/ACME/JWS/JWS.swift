import Foundation
import TokenSigning

/// A JWS in flattened JSON serialization (RFC 7515 §7.2.2) as ACME requests carry it (RFC 8555 §6.2): ES256, the
/// replay nonce and the request URL in the protected header, and the account's `jwk` (for `newAccount`) or its URL
/// as `kid` (every other request).
struct JWS: Encodable {
    /// Who signs: the key itself, or the account URL the CA gave it.
    enum Signer {
        /// `jwk`: for `newAccount` (and revocation by certificate key).
        case jwk
        /// `kid`: the account URL.
        case kid(String)
    }

    /// base64url of the protected header's JSON.
    let protected: String
    /// base64url of the payload; empty for POST-as-GET.
    let payload: String
    /// base64url of the 64-byte ES256 signature over `protected.payload`.
    let signature: String

    private struct Header: Encodable {
        let alg = "ES256"
        let jwk: JWK?
        let kid: String?
        let nonce: String
        let url: String
    }

    /// Signs `payload` (JSON bytes, or empty for POST-as-GET) for `url` with `key`.
    init(payload: [UInt8], url: String, nonce: String, signer: Signer, key: ACMEAccountKey) throws {
        let header: Header
        switch signer {
        case .jwk: header = Header(jwk: key.jwk, kid: nil, nonce: nonce, url: url)
        case .kid(let accountURL): header = Header(jwk: nil, kid: accountURL, nonce: nonce, url: url)
        }
        self.protected = Base64URL.encode(try JWS.encoder.encode(header))
        self.payload = Base64URL.encode(payload)
        let signature = try key.signES256(Array("\(protected).\(self.payload)".utf8))
        self.signature = Base64URL.encode(signature)
    }

    /// The request body (`application/jose+json`).
    func body() throws -> [UInt8] { Array(try JWS.encoder.encode(self)) }

    /// Compact, sorted keys, `/` unescaped: the bytes are exactly what is signed or sent.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
