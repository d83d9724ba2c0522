import Foundation

/// The signing secret of one webhook endpoint, per the Standard Webhooks specification: random bytes shown to the
/// admin once as `whsec_` + standard base64, and kept at rest sealed with the master key (AES-256-GCM, bound to the
/// endpoint's id), as the signing keys are. `description` never shows it.
///
/// A delivery is signed `v1,<base64 of HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>")>`
/// (`signature(messageID:timestamp:body:)`), which every Standard Webhooks library verifies.
public struct WebhookSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The prefix of a secret's text form.
    public static let prefix = "whsec_"
    /// How many random bytes a new secret has (the specification asks for 24 to 64).
    public static let generatedByteCount = 32
    /// The secret lengths the specification allows, in bytes.
    public static let allowedByteCounts = 24...64

    let bytes: [UInt8]

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// A new random secret.
    public static func generate() -> WebhookSecret {
        WebhookSecret(bytes: SecureRandom.bytes(generatedByteCount))
    }

    /// Reads a secret's text form, `whsec_` + standard base64 of 24 to 64 bytes.
    public init(text: String) throws {
        guard text.hasPrefix(Self.prefix), let data = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
              Self.allowedByteCounts.contains(data.count)
        else {
            throw TokenError(.sealing, "a webhook secret is whsec_ followed by the base64 of 24 to 64 bytes")
        }
        bytes = Array(data)
    }

    /// The text form shown to the admin once: `whsec_` + standard base64.
    public var text: String { Self.prefix + Data(bytes).base64EncodedString() }

    /// The secret sealed with `masterKey` for storage, bound to the endpoint `endpointID` (a sealed secret copied to
    /// another endpoint's row does not open).
    public func sealed(with masterKey: MasterKey, endpointID: String) throws -> [UInt8] {
        try AESGCM.seal(bytes, key: masterKey.bytes, aad: Self.sealingAAD(endpointID: endpointID))
    }

    /// Opens a secret sealed by `sealed(with:endpointID:)`; `sealing` error when the master key or endpoint differs.
    public init(sealed: [UInt8], masterKey: MasterKey, endpointID: String) throws {
        bytes = try AESGCM.open(sealed, key: masterKey.bytes, aad: Self.sealingAAD(endpointID: endpointID))
    }

    /// The `webhook-signature` value of a delivery: `v1,` + the standard base64 of
    /// HMAC-SHA256(secret, `messageID` + "." + `timestamp` + "." + `body`), through OpenSSL.
    /// - Parameters:
    ///   - messageID: the `webhook-id` header (the same on every attempt of one event).
    ///   - timestamp: the `webhook-timestamp` header, seconds since 1970 (the attempt's time).
    ///   - body: the exact body bytes sent.
    public func signature(messageID: String, timestamp: Int64, body: [UInt8]) throws -> String {
        let signed = Array("\(messageID).\(timestamp).".utf8) + body
        let tag = try HMACSHA256(key: bytes).authenticate(signed)
        return "v1," + Data(tag).base64EncodedString()
    }

    private static func sealingAAD(endpointID: String) -> [UInt8] {
        Array("linkd-webhook-secret-v1\u{0}".utf8) + Array(endpointID.utf8)
    }

    /// Redacted.
    public var description: String { "WebhookSecret(redacted)" }
    /// Redacted.
    public var debugDescription: String { description }
}
