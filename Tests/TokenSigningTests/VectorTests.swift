import Testing
@testable import TokenSigning

private func hex(_ s: String) -> [UInt8] { Hex.decode(s) ?? [] }

@Suite("RFC 4231 HMAC-SHA256 through our HMAC path")
struct RFC4231Tests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "4.2 case 1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
             mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Case(name: "4.3 case 2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
             mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Case(name: "4.4 case 3", key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
             mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Case(name: "4.5 case 4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
             mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Case(name: "4.6 case 5 (truncated to 128 bits)", key: [UInt8](repeating: 0x0c, count: 20),
             data: Array("Test With Truncation".utf8), mac: "a3b6167473100ee06e0c796c2955552b"),
        Case(name: "4.7 case 6 (131-byte key)", key: [UInt8](repeating: 0xaa, count: 131),
             data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Case(name: "4.8 case 7 (131-byte key, long data)", key: [UInt8](repeating: 0xaa, count: 131),
             data: Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
             mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: cases)
    func vector(_ c: Case) throws {
        let tag = try HMACSHA256(key: c.key).authenticate(c.data)
        let expected = hex(c.mac)
        #expect(Array(tag.prefix(expected.count)) == expected)
        // The same tag with the message split into a prepared prefix and a per-call part.
        let split = c.data.count / 2
        let prepared = try HMACSHA256(key: c.key, prefix: Array(c.data[..<split]))
        #expect(Array(try prepared.authenticate(Array(c.data[split...])).prefix(expected.count)) == expected)
        if expected.count == 32 {
            let ok = c.data.withUnsafeBytes { m in tag.withUnsafeBytes { HMACSHA256.verifyOneShot(try? HMACSHA256(key: c.key), m, $0) } }
            #expect(ok)
            var flipped = tag
            flipped[0] ^= 1
            let bad = c.data.withUnsafeBytes { m in flipped.withUnsafeBytes { HMACSHA256.verifyOneShot(try? HMACSHA256(key: c.key), m, $0) } }
            #expect(!bad)
        }
    }
}

extension HMACSHA256 {
    static func verifyOneShot(_ mac: HMACSHA256?, _ m: UnsafeRawBufferPointer, _ t: UnsafeRawBufferPointer) -> Bool {
        mac?.verify(m, tag: t) ?? false
    }
}

@Suite("RFC 8032 §7.1 Ed25519 through our Ed25519 path")
struct RFC8032Tests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let secret: String
        let publicKey: String
        let message: String
        let signature: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "TEST 1",
             secret: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
             publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", message: "",
             signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        Case(name: "TEST 2",
             secret: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
             publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", message: "72",
             signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        Case(name: "TEST 3",
             secret: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
             publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", message: "af82",
             signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
        Case(name: "TEST SHA(abc)",
             secret: "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
             publicKey: "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
             message: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
             signature: "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"),
    ]

    @Test(arguments: cases)
    func vector(_ c: Case) throws {
        let key = try Ed25519Key(seed: hex(c.secret))
        #expect(key.publicKey == hex(c.publicKey))
        let message = hex(c.message)
        let signature = try key.sign(message)
        #expect(signature == hex(c.signature))
        let verifier = try Ed25519Key(publicKey: hex(c.publicKey))
        #expect(verifier.verify(message, signature: hex(c.signature)))
        for bit in [0, 100, 511] {
            var flipped = hex(c.signature)
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!verifier.verify(message, signature: flipped))
        }
        if !message.isEmpty {
            var flippedMessage = message
            flippedMessage[0] ^= 1
            #expect(!verifier.verify(flippedMessage, signature: signature))
        }
    }
}

@Suite("Strict base64url")
struct Base64URLTests {
    @Test func roundTripsEveryLength() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    }

    @Test(arguments: ["Zg==", "Zm8=", "Zh", "Zm9", "+w", "/w", "Z", "Zm9v\n", " Zm9v", "Zm9v!", "Zm\u{e9}"])
    func rejectsNonCanonical(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
