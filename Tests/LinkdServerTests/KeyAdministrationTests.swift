import Foundation
import LinkStore
import LinkdTestSupport
import Logging
import Testing
import TokenSigning

@testable import LinkdServer

@Suite("Key administration over the store")
struct KeyAdministrationTests {
    @Test("keys made through the store verify after reopening it", arguments: StoreKind.allCases)
    func persistence(backend: StoreKind) async throws {
        let place = try backend.freshPlace()
        let masterKey = try MasterKey(bytes: SecureRandom.bytes(32))
        let logger = Logger(label: "test")
        let store = try await backend.open(place)
        let keys = try await KeyAdministration.open(store: store, masterKey: masterKey, logger: logger)
        _ = try await keys.change { try $0.generate(app: "handz", suite: .hmacSHA256) }
        let expiry = UInt32(Date().timeIntervalSince1970) + 3600
        let token = try keys.keyring.issue(app: "handz", suite: .hmacSHA256, linkID: .random(), expiresAt: expiry, generation: 1, flags: 0)

        let reopened = try await KeyAdministration.open(store: try await backend.open(place), masterKey: masterKey, logger: logger)
        let now = UInt32(Date().timeIntervalSince1970)
        #expect((try? reopened.keyring.verify(token, app: "handz", now: now).get()) != nil)
        #expect((try? reopened.keyring.verify(token, app: "coin", now: now).get()) == nil)
        // The wrong master key is a configuration error, not a crash.
        await #expect(throws: ConfigurationError.self) {
            try await KeyAdministration.open(store: try await backend.open(place), masterKey: try MasterKey(bytes: SecureRandom.bytes(32)), logger: logger)
        }
    }

    @Test("a change that fails writes nothing and leaves the keyring as the store has it", arguments: StoreKind.allCases)
    func failedChange(backend: StoreKind) async throws {
        let place = try backend.freshPlace()
        let keys = try await KeyAdministration.open(
            store: try await backend.open(place), masterKey: try MasterKey(bytes: SecureRandom.bytes(32)), logger: Logger(label: "test"))
        _ = try await keys.change { try $0.generate(app: "handz", suite: .hmacSHA256) }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await keys.change { draft -> Int in
                try draft.rotate(app: "handz", suite: .hmacSHA256)
                throw Refused()
            }
        }
        #expect(keys.keyring.keys(app: "handz").map(\.state) == [.active])
        #expect(try await backend.open(place).keyRecords().count == 1)
    }

    @Test("on a shared store a rotation writes the key pending, waits the propagation bound, then activates it")
    func sharedRotation() async throws {
        let place = try StoreKind.postgres.freshPlace()
        let masterKey = try MasterKey(bytes: SecureRandom.bytes(32))
        let store = try await StoreFront.open(.postgres(url: place, timing: PostgresTiming(syncInterval: .milliseconds(500))))
        let keys = try await KeyAdministration.open(store: store, masterKey: masterKey, logger: Logger(label: "test"))
        let first = try await keys.change { try $0.generate(app: "handz", suite: .hmacSHA256) }
        let observer = try await StoreFront.open(.postgres(url: place))
        let started = Date()
        let rotation = Task {
            try await keys.rotate(app: "handz", suite: .hmacSHA256) { AuditEntry(at: Date(), actor: "test", action: "key.rotate", detail: "kid \($0.kid)") }
        }
        // While the rotation waits, the store holds the new key as pending (other instances load it from there).
        var sawPending = false
        while !sawPending && Date().timeIntervalSince(started) < 5 {
            let stored = try await observer.keyRecords().map { try JSONDecoder().decode(KeyRecord.self, from: $0.record) }
            sawPending = stored.contains { $0.kid != first.kid && $0.state == .pending }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(sawPending)
        let rotated = try await rotation.value
        #expect(Date().timeIntervalSince(started) >= KeyAdministration.seconds(store.propagationBound) - 0.05)
        #expect(rotated.state == .active && rotated.kid != first.kid)
        #expect(keys.keyring.keys(app: "handz").first { $0.kid == first.kid }?.state == .verifyOnly)
        // One audit entry, written with the activation.
        #expect(try await store.auditLog(limit: 10).map(\.detail) == ["kid \(rotated.kid)"])
        await store.close()
        await observer.close()
    }
}
