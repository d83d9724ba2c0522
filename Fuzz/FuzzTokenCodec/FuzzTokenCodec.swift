import FuzzSupport
import TokenSigning

/// The test vectors' keyring (TEST-ONLY keys, docs/token-vectors.json): the seed tokens verify against it.
private let keyring: Keyring = {
    do { return try TokenVectors.keyring() } catch { fatalError("the test keyring does not load: \(error)") }
}()

/// The token codec: strict base64url, the header layout and `Keyring.verify`, on any bytes.
///
/// Invariants: any bytes survive encode → decode; text that decodes is canonical (it re-encodes to the same text);
/// a decoded header re-encodes to the same 30 bytes; `verify` never traps, refuses with a message, and what it accepts
/// is exactly the token's header with the tag length of its suite, not expired past the leeway.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenCodec(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let encoded = Base64URL.encode(bytes)
    Fuzz.require(Base64URL.decode(encoded) == Array(bytes), "encode → decode lost bytes")

    let text = String(decoding: bytes, as: UTF8.self)
    let decoded = Base64URL.decode(text)
    if let decoded {
        Fuzz.require(Base64URL.encode(decoded) == text, "'\(text)' decodes but is not canonical")
        if let claims = decoded.withUnsafeBufferPointer({ TokenLayout.parseHeader($0) }) {
            Fuzz.require(TokenLayout.header(claims) == Array(decoded.prefix(TokenLayout.headerLength)),
                         "the header does not re-encode to its bytes")
        }
    }
    if let id = LinkID(hex: text) {
        Fuzz.require(id.hex == text.lowercased(), "link id '\(text)' re-encodes as '\(id.hex)'")
    }
    for app in ["example", "other", "nobody"] {
        switch keyring.verify(text, app: app, now: TokenVectors.now) {
        case .success(let claims):
            Fuzz.require(decoded?.count == claims.suite.tokenLength, "a verified token has the wrong length")
            Fuzz.require(decoded.map { Array($0.prefix(TokenLayout.headerLength)) } == TokenLayout.header(claims),
                         "the verified claims are not the token's header")
            Fuzz.require(UInt64(claims.expiresAt) + UInt64(Keyring.expiryLeeway) >= UInt64(TokenVectors.now),
                         "an expired token verified")
        case .failure(let error):
            Fuzz.require(!error.message.isEmpty, "a refusal without a message")
        }
    }
    return 0
}
