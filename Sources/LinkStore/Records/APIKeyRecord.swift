public import Foundation

/// What an API key may do.
public enum APIKeyKind: String, Codable, Sendable {
    /// A client key: create and manage links of one app.
    case client
    /// An admin key: keys, revocations, audit log.
    case admin
}

/// A stored API key. Only the SHA-256 digest of the secret is kept.
public struct APIKeyRecord: Codable, Sendable, Equatable {
    /// A public identifier of the key (shown in lists and the audit log).
    public var id: String
    /// Client or admin.
    public var kind: APIKeyKind
    /// The app a client key is scoped to; nil for admin keys.
    public var app: String?
    /// A label chosen by the admin.
    public var label: String
    /// SHA-256 of the secret.
    public var secretHash: Data
    /// When it was created.
    public var created: Date
    /// When it was revoked, if it was.
    public var revoked: Date?

    /// Creates an API key record.
    public init(id: String, kind: APIKeyKind, app: String?, label: String, secretHash: Data, created: Date, revoked: Date? = nil) {
        self.id = id
        self.kind = kind
        self.app = app
        self.label = label
        self.secretHash = secretHash
        self.created = created
        self.revoked = revoked
    }
}

/// One audit log entry: an admin action.
public struct AuditEntry: Codable, Sendable, Equatable {
    /// Sequence number (assigned by the store).
    public var seq: Int64?
    /// When it happened.
    public var at: Date
    /// Who did it (an API key id).
    public var actor: String
    /// What was done, e.g. `key.rotate`.
    public var action: String
    /// Details (free text, never secrets).
    public var detail: String
    /// The app the action concerned, when it concerned one (what the audit log is filtered by).
    public var app: String?
    /// The webhook events the action emits: not part of the entry's row, but written to the outbox wherever the
    /// backend writes the entry, so in the action's own transaction (see `WebhookEvent`).
    public var events: [WebhookEvent] = []

    /// The stored columns (`events` go to the outbox, not to the audit log).
    private enum CodingKeys: String, CodingKey { case seq, at, actor, action, detail, app }

    /// Creates an audit entry.
    public init(
        seq: Int64? = nil, at: Date, actor: String, action: String, detail: String, app: String? = nil,
        events: [WebhookEvent] = []
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.action = action
        self.detail = detail
        self.app = app
        self.events = events
    }
}

/// A stored signing-key record: an opaque JSON blob owned by TokenSigning (secrets sealed).
public struct StoredKeyRecord: Codable, Sendable, Equatable {
    /// The app of the key.
    public var app: String
    /// The key id.
    public var kid: Int64
    /// The encoded key record (sealed private material inside).
    public var record: Data

    /// Creates a stored key record.
    public init(app: String, kid: Int64, record: Data) {
        self.app = app
        self.kid = kid
        self.record = record
    }
}
