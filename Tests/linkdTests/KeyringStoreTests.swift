import Foundation
import LinkStore
import Testing
import TokenSigning

@testable import linkd

@Suite("SQLiteKeyringStore")
struct SQLiteKeyringStoreTests {
    @Test("keys generated through the SQLite keyring store verify after reopening the store")
    func persistence() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linkd-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let masterKey = try MasterKey(bytes: SecureRandom.bytes(32))
        let keyring = try Keyring(store: SQLiteKeyringStore(store: try SQLiteLinkStore(path: dir + "/db.sqlite")), masterKey: masterKey)
        try keyring.generate(app: "handz", suite: .hmacSHA256)
        let expiry = UInt32(Date().timeIntervalSince1970) + 3600
        let token = try keyring.issue(app: "handz", suite: .hmacSHA256, linkID: .random(), expiresAt: expiry, generation: 1, flags: 0)

        let reopened = try Keyring(store: SQLiteKeyringStore(store: try SQLiteLinkStore(path: dir + "/db.sqlite")), masterKey: masterKey)
        let now = UInt32(Date().timeIntervalSince1970)
        #expect((try? reopened.verify(token, app: "handz", now: now).get()) != nil)
        #expect((try? reopened.verify(token, app: "coin", now: now).get()) == nil)
    }
}
