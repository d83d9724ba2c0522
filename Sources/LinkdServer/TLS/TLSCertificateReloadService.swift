import Foundation
import Logging
import ServiceLifecycle
import TokenSigning
import UnixSignals

/// Re-reads the operator's certificate files on `SIGHUP` and when one of them changes (their modification time,
/// size or inode, looked at every `pollInterval`), and installs them for the next handshakes; open connections keep
/// theirs. A set that does not read (a chain and a key that do not match, half of a renewal written) is refused
/// whole and logged: the certificates in use stay.
struct TLSCertificateReloadService: Service {
    /// The configured files (`tls.certificates`).
    let files: [CertificateFiles]
    let certificates: TLSCertificates
    let logger: Logger
    /// How often the files are looked at.
    var pollInterval: Duration = .seconds(2)

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() { reload(because: "SIGHUP") }
            }
            group.addTask {
                try await cancelWhenGracefulShutdown {
                    var seen = stamps()
                    while !Task.isCancelled {
                        try await Task.sleep(for: pollInterval)
                        let now = stamps()
                        if now != seen {
                            seen = now
                            reload(because: "a certificate file changed")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Reads every file again; installs them all, or none.
    func reload(because reason: String) {
        do {
            let entries = try TLSCertificates.read(files)
            certificates.installFiles(entries)
            logger.notice("TLS certificates read again", metadata: [
                "reason": "\(reason)", "hosts": "\(entries.flatMap(\.hosts).joined(separator: ","))",
            ])
        } catch {
            logger.error("TLS certificates not read; the ones in use stay", metadata: ["reason": "\(reason)", "error": "\(error)"])
        }
    }

    /// Each file's modification time, size and inode (through symbolic links, as a renewal tool swaps them).
    private func stamps() -> [String] {
        files.flatMap { [$0.certificate, $0.privateKey] }.map { path in
            "\(path):" + (FileProbe.stamp(path) ?? "missing")
        }
    }
}
