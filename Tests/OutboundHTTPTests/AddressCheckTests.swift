import Foundation
import LinkdTestSupport
import OutboundHTTP
import Synchronization
import Testing

/// `OutboundRequest.allowsAddress`: asked with the address curl is about to connect to, whatever the URL named; a
/// refused address gets no connection and the request fails as `addressRefused`.
@Suite struct AddressCheckTests {
    @Test func asksWithTheAddressConnectedToAndRefusesBeforeConnecting() async throws {
        let server = try LoopbackOrigin(script: OutboundHTTPTests.echo)
        let asked = Mutex<[[UInt8]]>([])
        // Allowed: the request goes through, and the check saw 127.0.0.1 although the URL named "localhost".
        let allowed = OutboundRequest(
            method: "POST", url: "http://localhost:\(server.port)/x", body: Array("{}".utf8), limits: OutboundHTTPTests.limits,
            allowsAddress: { address in
                asked.withLock { $0.append(address) }
                return address == [127, 0, 0, 1]
            })
        let answer = try await OutboundHTTP.perform(allowed).get()
        #expect(answer.status == 201)
        #expect(asked.withLock { $0 }.contains([127, 0, 0, 1]))

        // Refused: no connection is made, whatever the name resolves to.
        for url in ["http://127.0.0.1:\(server.port)/x", "http://localhost:\(server.port)/x"] {
            let refused = OutboundRequest(url: url, limits: OutboundHTTPTests.limits, allowsAddress: { _ in false })
            switch await OutboundHTTP.perform(refused) {
            case .success(let response): Issue.record("\(url) was fetched: \(response.status)")
            case .failure(let failure):
                #expect(failure.kind == .addressRefused, "\(failure)")
                #expect(failure.message.contains("127.0.0.1") || failure.message.contains("::1"), "\(failure)")
            }
        }
    }
}
