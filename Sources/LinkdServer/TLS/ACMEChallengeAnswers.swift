import ACME
import Foundation
import Hummingbird
import LinkdHTTP
import LinkStore
import NIOCore

/// The HTTP-01 challenges of the orders in progress, kept in memory and in the store, so that whichever instance the
/// CA's validation request reaches behind a load balancer answers it. The path is public: a token this instance does
/// not hold costs a store read, at most `storeReadsPerSecond` of them (burst `storeReadBurst`) whoever asks, so a
/// flood of made-up tokens cannot turn into a flood of database reads; past it, such a token is a 404 at once.
final class ACMEChallengeAnswers: HTTP01Responder {
    private let memory = HTTP01Challenges()
    private let store: StoreFront
    /// Store reads of tokens not held here, for all clients together.
    private let storeReads = RateLimiter(perSecond: storeReadsPerSecond, burst: storeReadBurst)
    static let storeReadsPerSecond: Double = 20
    static let storeReadBurst: Double = 40

    init(store: StoreFront) { self.store = store }

    func publish(token: String, keyAuthorization: String) async {
        await memory.publish(token: token, keyAuthorization: keyAuthorization)
        try? await store.backend.saveTLSSecret(StoredTLSSecret(
            name: "challenge/" + token, value: Data(keyAuthorization.utf8), updated: Date()))
    }

    func withdraw(token: String) async {
        await memory.withdraw(token: token)
        try? await store.backend.deleteTLSSecret(name: "challenge/" + token)
    }

    /// The key authorization for `token`: memory, else the store (another instance's order); nil when none.
    func answer(token: String) async -> String? {
        if let local = memory.keyAuthorization(for: token) { return local }
        guard storeReads.allow("store") else { return nil }
        let stored = try? await store.backend.tlsSecrets(prefix: "challenge/" + token)
        return stored?.first { $0.name == "challenge/" + token }.map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// `GET /.well-known/acme-challenge/{token}`: the key authorization as text, or 404. A token is 1–128 base64url
    /// characters; anything else is 404 without a store read.
    func register(on router: some RouterMethods<LinkdRequestContext>) {
        router.get(".well-known/acme-challenge/{token}") { _, context -> Response in
            let token = context.parameters.get("token") ?? ""
            guard (1...128).contains(token.utf8.count),
                  token.utf8.allSatisfy({ Base64URLAlphabet.contains($0) }),
                  let answer = await self.answer(token: token)
            else {
                return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: "no such challenge\n")))
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
    }
}

/// The bytes of base64url text.
private enum Base64URLAlphabet {
    static func contains(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
