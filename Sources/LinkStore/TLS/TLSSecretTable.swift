public import Foundation

/// A value the TLS listener needs, sealed with the master key by its owner before it reaches the store: the ACME
/// account key, an issued certificate (chain and key), an HTTP-01 challenge's answer.
public struct StoredTLSSecret: Sendable, Equatable {
    /// Its name: `acme-account`, `certificate/<app>`, `challenge/<token>`.
    public var name: String
    /// The sealed bytes (challenges: the key authorization, not secret, unsealed).
    public var value: Data
    /// When a certificate stops being valid (nil for the rest).
    public var notAfter: Date?
    /// When it was written.
    public var updated: Date

    /// A value.
    public init(name: String, value: Data, notAfter: Date? = nil, updated: Date) {
        self.name = name
        self.value = value
        self.notAfter = notAfter
        self.updated = updated
    }
}

/// The TLS listener's values, shared by every instance of a store, and the lease that lets one instance at a time
/// order certificates.
public protocol TLSSecretTable: Sendable {
    /// The values whose name starts with `prefix`, by name.
    func tlsSecrets(prefix: String) async throws -> [StoredTLSSecret]
    /// Writes (or replaces) a value.
    func saveTLSSecret(_ secret: StoredTLSSecret) async throws
    /// Deletes a value (nothing when there is none).
    func deleteTLSSecret(name: String) async throws
    /// Takes the lease `name` for `holder` until `until` when it is free, expired at `now`, or already `holder`'s;
    /// whether `holder` holds it now.
    func acquireLease(name: String, holder: String, until: Date, now: Date) async throws -> Bool
    /// Gives up `holder`'s lease `name` (nothing when another holds it).
    func releaseLease(name: String, holder: String) async throws
}

/// The `tls-v1` migration's tables, in both dialects.
enum TLSSchema {
    static let sqlite = [
        "CREATE TABLE tls_secrets (name TEXT NOT NULL PRIMARY KEY, value BLOB NOT NULL, notAfter INTEGER, updated INTEGER NOT NULL)",
        "CREATE TABLE leases (name TEXT NOT NULL PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL)",
    ]
    static let postgres = [
        "CREATE TABLE tls_secrets (name text PRIMARY KEY, value bytea NOT NULL, not_after timestamptz, updated timestamptz NOT NULL)",
        "CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, until timestamptz NOT NULL)",
    ]
}
