import ACME
import Foundation
import LinkdTestSupport
import OutboundHTTP

/// Checks an issued chain from outside: `openssl verify` against pebble's issuing root, and the leaf's dates as
/// `openssl x509` reads them.
enum ChainCheck {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// pebble's issuing root (`/roots/0` on its management interface), fetched over HTTPS trusting `pebble.caFile`.
    static func issuingRoot(_ pebble: TestPebble) async throws -> String {
        let request = OutboundRequest(
            url: pebble.managementURL + "/roots/0",
            limits: OutboundLimits(connectTimeoutMilliseconds: 5_000, totalTimeoutMilliseconds: 10_000, maxResponseBytes: 1 << 16),
            allowedSchemes: "https", caCertificatesFile: pebble.caFile)
        let response = try await OutboundHTTP.perform(request).get()
        guard response.status == 200 else { throw Failure(description: "/roots/0 answered \(response.status)") }
        return String(decoding: response.body, as: UTF8.self)
    }

    /// The chain's certificates as PEM blocks.
    static func certificates(_ chainPEM: String) -> [String] {
        let end = "-----END CERTIFICATE-----"
        return chainPEM.components(separatedBy: end).dropLast().map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines) + "\n" + end + "\n"
        }
    }

    /// `openssl verify -CAfile root -untrusted intermediates leaf`'s output (throws unless it exits 0).
    static func verify(_ issued: IssuedCertificate, root: String) throws -> String {
        let openssl = try ExternalTool.path("openssl", install: "apt-get install openssl")
        let directory = try ExternalTool.temporaryDirectory("acme-chain")
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = certificates(issued.certificateChainPEM)
        guard let leaf = parts.first, parts.count >= 2 else { throw Failure(description: "the chain holds \(parts.count) certificate(s)") }
        let files = ["root.pem": root, "leaf.pem": leaf, "intermediates.pem": parts.dropFirst().joined()]
        for (name, text) in files { try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let output = try ExternalTool.run(openssl, [
            "verify", "-CAfile", path("root.pem"), "-untrusted", path("intermediates.pem"), "-purpose", "sslserver", path("leaf.pem"),
        ])
        return String(decoding: output, as: UTF8.self)
    }

    /// The leaf's notBefore and notAfter as `openssl x509 -dateopt iso_8601` prints them.
    static func dates(_ issued: IssuedCertificate) throws -> (notBefore: Date, notAfter: Date) {
        let openssl = try ExternalTool.path("openssl", install: "apt-get install openssl")
        let output = try ExternalTool.run(
            openssl, ["x509", "-noout", "-startdate", "-enddate", "-dateopt", "iso_8601"],
            input: Array((certificates(issued.certificateChainPEM).first ?? "").utf8))
        var found: [String: Date] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let iso = parts[1].replacingOccurrences(of: " ", with: "T")
            found[String(parts[0])] = ISO8601DateFormatter().date(from: iso)
        }
        guard let notBefore = found["notBefore"], let notAfter = found["notAfter"] else {
            throw Failure(description: "openssl x509 printed \(String(decoding: output, as: UTF8.self))")
        }
        return (notBefore, notAfter)
    }
}
