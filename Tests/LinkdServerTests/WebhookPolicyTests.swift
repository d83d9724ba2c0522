import Foundation
import Testing

@testable import LinkdHTTP
@testable import LinkdServer

/// Where webhooks may go (SSRF) and when they are retried: the rules, without a server.
@Suite("Webhook URL policy and retry schedule")
struct WebhookPolicyTests {
    static let strict = WebhookURLPolicy(allowLoopback: false)
    static let loopback = WebhookURLPolicy(allowLoopback: true)

    @Test("endpoint URLs: https to a public host only; every address form of loopback, private, link-local, multicast and unspecified refused",
          arguments: [
              "http://hooks.example.com/x", "ftp://hooks.example.com/", "hooks.example.com/x", "https:///x",
              "https://user:pw@hooks.example.com/", "https://hooks.example.com/#frag", "https://hooks.example.com/ä",
              "https://127.0.0.1/", "https://127.9.9.9:8443/", "https://localhost/", "https://api.localhost/",
              "https://localhost./", "https://10.1.2.3/", "https://172.16.0.1/", "https://192.168.1.1/",
              "https://169.254.169.254/latest/meta-data", "https://100.64.0.1/", "https://0.0.0.0/", "https://224.0.0.1/",
              "https://255.255.255.255/", "https://[::1]/", "https://[::]/", "https://[::ffff:127.0.0.1]/",
              "https://[::ffff:10.0.0.1]/", "https://[fe80::1]/", "https://[fc00::1]/", "https://[fd12:3456::1]/",
              "https://[ff02::1]/", "https://127.1/", "https://2130706433/", "https://0x7f000001/", "https://0177.0.0.1/",
              "https://[64:ff9b::a00:1]/", "https://[64:ff9b::7f00:1]/", "https://[2002:a00:1::]/", "https://[2002:c0a8:101::1]/",
              "https://[::ffff:0:a00:1]/", "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
              "https://" + String(repeating: "a", count: 2100) + ".example.com/",
          ])
    func refusedURLs(url: String) {
        #expect(throws: WebhookURLError.self) { try Self.strict.check(url: url) }
    }

    @Test("public https URLs are taken", arguments: [
        "https://hooks.example.com/linkd", "https://hooks.example.com:8443/a/b?token=x", "https://93.184.216.34/",
        "https://[2606:2800:220:1::1]/", "HTTPS://Hooks.Example.com/",
        // A public IPv4 address carried by NAT64 and 6to4 is that address.
        "https://[64:ff9b::5db8:d822]/", "https://[2002:5db8:d822::1]/",
    ])
    func allowedURLs(url: String) throws {
        try Self.strict.check(url: url)
    }

    @Test("allowLoopbackWebhooks: plain http and https to loopback only; private addresses still refused")
    func loopbackForDevelopment() throws {
        for url in ["http://127.0.0.1:9000/hook", "http://localhost:9000/", "http://[::1]:9000/", "https://127.0.0.1/"] {
            try Self.loopback.check(url: url)
        }
        for url in ["http://hooks.example.com/", "http://10.0.0.1/", "https://10.0.0.1/", "https://[fe80::1]/"] {
            #expect(throws: WebhookURLError.self, "\(url)") { try Self.loopback.check(url: url) }
        }
    }

    @Test("the address connected to: IPv4, IPv6 and IPv4-mapped IPv6 judged alike")
    func addresses() {
        func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> IPAddress { IPAddress(networkBytes: [a, b, c, d]) }
        func mapped(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> IPAddress {
            IPAddress(networkBytes: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, a, b, c, d])
        }
        #expect(Self.strict.allows(v4(93, 184, 216, 34)))
        #expect(Self.strict.allows(IPAddress("2606:2800:220:1::1")!))
        for address in [v4(127, 0, 0, 1), mapped(127, 0, 0, 1), v4(10, 0, 0, 1), mapped(192, 168, 0, 1), v4(169, 254, 1, 1),
                        v4(0, 0, 0, 0), v4(224, 0, 0, 1), IPAddress("::1")!, IPAddress("::")!, IPAddress("fe80::1")!,
                        IPAddress("fd00::1")!, IPAddress("ff02::1")!, IPAddress(networkBytes: [1, 2, 3])] {
            #expect(!Self.strict.allows(address), "\(address)")
        }
        #expect(Self.loopback.allows(v4(127, 0, 0, 1)))
        #expect(Self.loopback.allows(mapped(127, 0, 0, 1)))
        #expect(Self.loopback.allows(IPAddress("::1")!))
        #expect(!Self.loopback.allows(v4(10, 0, 0, 1)))
    }

    @Test("retries back off exponentially with ±20 % jitter over about a day, then stop")
    func retrySchedule() {
        let schedule = WebhookRetrySchedule(base: 5, maxAttempts: 16)
        #expect(schedule.delay(afterAttempt: 1, random: 0.5) == 5)
        #expect(schedule.delay(afterAttempt: 2, random: 0.5) == 10)
        #expect(schedule.delay(afterAttempt: 3, random: 0) == 16)
        #expect(schedule.delay(afterAttempt: 3, random: 0.999_999)! < 24.01)
        #expect(schedule.delay(afterAttempt: 15, random: 0.5) == WebhookRetrySchedule.maxDelay)
        #expect(schedule.delay(afterAttempt: 16) == nil)
        let hours = schedule.nominalSpan / 3600
        #expect(hours > 20 && hours < 26, "the retries span \(hours) h")
    }
}
