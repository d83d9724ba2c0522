/// What a token's header states, read without checking its signature: for deciding whether an answer can come from
/// memory at all (the link is not cached: a store read is needed, and the path that reads checks the signature
/// first), never for trusting a claim.
public enum UnverifiedToken {
    /// The claims the header of `token` states (nil when it is not a token's shape), unchecked.
    public static func claims(of token: String) -> TokenClaims? {
        guard token.utf8.count == TokenSuite.hmacSHA256.encodedLength || token.utf8.count == TokenSuite.ed25519.encodedLength,
              let bytes = Base64URL.decode(token), bytes.count >= TokenLayout.headerLength
        else { return nil }
        return bytes.withUnsafeBufferPointer { TokenLayout.parseHeader($0) }
    }
}
