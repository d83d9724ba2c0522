import ACME
import Foundation
import LinkdHTTP
import NIOCore
import NIOSSL
import Synchronization

/// The certificates the TLS listener serves, chosen per connection by the name the client asks for (SNI): the
/// operator's files (`tls.certificates`) first, then those ACME obtained. Swapped whole when files are re-read or a
/// certificate is issued; a handshake reads the set once, so connections already open keep theirs.
final class TLSCertificates: Sendable {
    /// One certificate and what it serves.
    struct Entry: Sendable {
        /// The leaf's DNS names (lowercased; `*.example.com` serves one label under it).
        let hosts: [String]
        /// The chain, leaf first, and its key, as NIO's TLS reads them.
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        /// When the leaf's validity starts and ends.
        let notBefore: Date
        let notAfter: Date
        /// Where it came from: a file's path, or `acme`.
        let source: String
    }

    private let files = Mutex<[Entry]>([])
    private let issued = Mutex<[Entry]>([])

    /// An empty set: handshakes fail until a certificate is installed.
    init() {}

    /// Installs the operator's certificates (replacing the ones read before).
    func installFiles(_ entries: [Entry]) { files.withLock { $0 = entries } }

    /// Installs the certificates ACME obtained (replacing the ones installed before).
    func installIssued(_ entries: [Entry]) { issued.withLock { $0 = entries } }

    /// Every certificate served now, files first.
    var all: [Entry] { files.withLock { $0 } + issued.withLock { $0 } }

    /// The certificate for `host`: an exact name, else a wildcard one label up, else (no SNI, or a name none
    /// serves) the first one, so that a client without SNI still gets an answer it can judge.
    func entry(for host: String?) -> Entry? {
        let entries = all
        guard let host = host?.lowercased(), !host.isEmpty else { return entries.first }
        if let exact = entries.first(where: { $0.hosts.contains(host) }) { return exact }
        if let dot = host.firstIndex(of: ".") {
            let wildcard = "*" + host[dot...]
            if let match = entries.first(where: { $0.hosts.contains(wildcard) }) { return match }
        }
        return entries.first
    }

    /// NIO's per-handshake callback: the chain and key for the client's SNI name; the handshake fails when there is
    /// no certificate at all.
    var contextCallback: NIOSSLContextCallback {
        { [self] values, promise in
            guard let entry = entry(for: values.serverHostname) else {
                promise.fail(TLSCertificateError(message: "no certificate is installed"))
                return
            }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = entry.chain.map { .certificate($0) }
            override.privateKey = .privateKey(entry.key)
            promise.succeed(override)
        }
    }

    /// An entry from a PEM chain and key: checked (the key is the leaf's) and read (names, expiry).
    static func entry(chainPEM: String, keyPEM: String, source: String) throws -> Entry {
        do {
            let summary = try IssuedCertificate.inspect(chainPEM: chainPEM, privateKeyPEM: keyPEM)
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8))
            let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
            return Entry(
                hosts: summary.hosts.map { $0.lowercased() }, chain: chain, key: key, notBefore: summary.notBefore,
                notAfter: summary.notAfter, source: source)
        } catch let error as ACMEError {
            throw TLSCertificateError(message: "\(source): \(error.message)")
        } catch {
            throw TLSCertificateError(message: "\(source): \(error)")
        }
    }

    /// Reads the operator's files (each chain with its key): every problem names its file.
    static func read(_ files: [CertificateFiles]) throws -> [Entry] {
        try files.map { pair in
            let maxBytes = 1 << 20
            func text(_ path: String) throws -> String {
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                      let data = FileManager.default.contents(atPath: path)
                else { throw TLSCertificateError(message: "\(path): cannot read the file") }
                guard (attributes[.size] as? Int ?? 0) <= maxBytes else {
                    throw TLSCertificateError(message: "\(path): larger than \(maxBytes) bytes")
                }
                return String(decoding: data, as: UTF8.self)
            }
            return try entry(chainPEM: try text(pair.certificate), keyPEM: try text(pair.privateKey), source: pair.certificate)
        }
    }
}

/// A certificate that cannot be read or served, naming its file.
struct TLSCertificateError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
