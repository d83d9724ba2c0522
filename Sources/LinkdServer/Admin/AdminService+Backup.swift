import Foundation
import HTTPTypes
import LinkStore
import Logging

/// A copy of the embedded store made by `POST /v1/admin/backup`.
struct StoreBackup: Sendable {
    /// The copy's absolute path, in the data directory's `backups/`.
    let file: String
    /// Its size.
    let bytes: Int
    /// How long the copy took.
    let duration: Duration
    /// When it was started (the copy is the store as of about then).
    let createdAt: Date
}

extension AdminService {
    /// Makes a consistent copy of the SQLite store while it serves (`StoreFront.backup`) as
    /// `<dataDir>/backups/linkd-<UTC time>.sqlite` (mode 0600 under the daemon's umask, never replacing a file), and
    /// audits it as `store.backup`. 422 on PostgreSQL, whose backups are the database's own; 503 when the copy fails.
    func backup(by caller: Caller, logger: Logger) async throws -> StoreBackup {
        let createdAt = Date()
        let directory = backupsDirectory
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AdminError(.unavailable, "cannot make the backups folder \(directory): \(error.localizedDescription)")
        }
        let path = Self.freeBackupPath(in: directory, at: createdAt)
        let clock = ContinuousClock()
        let started = clock.now
        let bytes: Int
        do {
            bytes = try await store.backup(to: path)
        } catch {
            throw Self.backupError(error)
        }
        let backup = StoreBackup(file: path, bytes: bytes, duration: clock.now - started, createdAt: createdAt)
        let name = (path as NSString).lastPathComponent
        try await LinkService.storing {
            try await store.appendAudit(AuditEntry(
                at: createdAt, actor: caller.keyID, action: AuditAction.storeBackup.rawValue, detail: "\(name) (\(bytes) bytes)"))
        }
        logger.logAdminAction(.storeBackup, actor: caller.keyID, ["file": "\(path)", "bytes": "\(bytes)"])
        return backup
    }

    /// `linkd-20261126T051800Z.sqlite`, or with `-2`, `-3`… when a backup of the same second exists.
    static func freeBackupPath(in directory: String, at date: Date) -> String {
        var formatter = Date.ISO8601FormatStyle(timeZone: .gmt)
        formatter = formatter.year().month().day().time(includingFractionalSeconds: false).timeSeparator(.omitted)
            .dateSeparator(.omitted).dateTimeSeparator(.standard)
        let stem = directory + "/linkd-" + date.formatted(formatter)
        var path = stem + ".sqlite", suffix = 2
        while FileManager.default.fileExists(atPath: path) {
            path = stem + "-\(suffix).sqlite"
            suffix += 1
        }
        return path
    }

    /// The API's answer to a failed backup.
    private static func backupError(_ error: any Error) -> AdminError {
        guard let error = error as? LinkStoreError else {
            return AdminError(.unavailable, "the backup failed; retry later")
        }
        switch error.code {
        case .unsupported: return AdminError(.invalid, error.message)
        case .conflict: return AdminError(.conflict, error.message)
        default: return AdminError(.unavailable, "the backup failed: \(error.message)")
        }
    }
}
