/// What a token's header states, read without checking its signature: for deciding whether an answer can come from
/// memory at all (the link is not cached: a store read is needed, and the path that reads checks the signature
/// first), never for trusting a claim.
public enum UnverifiedToken {
    /// The claims the header of `token` states (nil when it is not a token's shape), unchecked. Decodes on the
    /// stack: it runs on the memory-only paths of every request that carries a token.
    public static func claims(of token: String) -> TokenClaims? {
        var token = token
        return token.withUTF8 { utf8 in
            guard utf8.count == TokenSuite.hmacSHA256.encodedLength || utf8.count == TokenSuite.ed25519.encodedLength else {
                return nil
            }
            // The longest token (Ed25519, 126 characters) is 94 bytes.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 96) { buffer in
                guard let length = Base64URL.decode(utf8: utf8, into: buffer), length >= TokenLayout.headerLength else {
                    return nil
                }
                return TokenLayout.parseHeader(UnsafeBufferPointer(rebasing: buffer[..<length]))
            }
        }
    }
}
