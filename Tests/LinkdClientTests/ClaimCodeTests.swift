import Foundation
import LinkdClient
import Testing

/// Reading a claim code from an Android install referrer and from what a person pasted on iOS.
@Suite("ClaimCode parsing")
struct ClaimCodeTests {
    static let code = "q2Zm9_x-E3sVb8LkPq0aYw"

    @Test("the code's shape: 22 base64url characters, the last canonical for 128 bits")
    func shape() {
        #expect(ClaimCode(Self.code)?.value == Self.code)
        #expect(ClaimCode("  \(Self.code)\n")?.value == Self.code)
        #expect(ClaimCode(String(Self.code.dropLast())) == nil)
        #expect(ClaimCode(Self.code + "A") == nil)
        #expect(ClaimCode(String(Self.code.dropLast()) + "x") == nil, "not canonical: low bits set")
        #expect(ClaimCode(String(Self.code.dropLast(2)) + "+w") == nil, "not base64url")
        #expect(ClaimCode("") == nil)
    }

    @Test("Android install referrer: among other params, url-encoded once or twice, form-encoded; nothing for an organic install")
    func installReferrer() {
        let code = Self.code
        let found = [
            "linkd_claim=\(code)",
            "utm_source=google-play&utm_medium=organic&linkd_claim=\(code)",
            "linkd_claim=\(code)&utm_campaign=share",
            "linkd_claim%3D\(code)",
            "utm_source%3Dgoogle-play%26linkd_claim%3D\(code)",
            "utm_source%253Dx%2526linkd_claim%253D\(code)",
            "linkd%5Fclaim=\(code.replacingOccurrences(of: "-", with: "%2D"))",
            "  linkd_claim=\(code)\n",
        ]
        for referrer in found {
            #expect(ClaimCode.fromInstallReferrer(referrer)?.value == code, "\(referrer)")
        }
        let none = [
            "", "utm_source=google-play&utm_medium=organic", "linkd_claim=", "linkd_claim=short",
            "linkd_claim=\(code)x", "xlinkd_claim=\(code)", "linkd_claim=%ZZ", "utm_source=(not%20set)",
        ]
        for referrer in none {
            #expect(ClaimCode.fromInstallReferrer(referrer) == nil, "\(referrer)")
        }
    }

    @Test("pasted on iOS: the bare code, a claim link (query, fragment or last segment), such a link inside other text")
    func pasted() {
        let code = Self.code
        let found = [
            code,
            " \(code) ",
            "https://links.handz.example/s/TOKEN/claim?linkd_claim=\(code)",
            "https://links.handz.example/claim/\(code)",
            "https://links.handz.example/c#linkd_claim=\(code)",
            "handz://claim?linkd_claim=\(code)&x=1",
            "Open Handz with this: https://links.handz.example/claim/\(code) (copied)",
            "<https://links.handz.example/claim/\(code)>",
        ]
        for text in found {
            #expect(ClaimCode.fromPasted(text)?.value == code, "\(text)")
        }
        let none = ["", "hello", "https://links.handz.example/flows/3f2504e0-4f89-11d3-9a0c-0305e82c3301",
                    "https://example.com/claim/short", String(repeating: "a", count: 5000) + code]
        for text in none {
            #expect(ClaimCode.fromPasted(text) == nil, "\(text.prefix(80))")
        }
    }
}
