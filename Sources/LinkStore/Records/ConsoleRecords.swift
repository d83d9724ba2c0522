public import Foundation

/// A signed-in admin console session. The session id itself is only in the browser's cookie: the store keeps its
/// SHA-256 digest, so a copy of the database signs nobody in.
public struct AdminSessionRecord: Codable, Sendable, Equatable {
    /// SHA-256 of the session id.
    public var idHash: Data
    /// The admin API key the session was opened with (every action is audited as this key).
    public var keyID: String
    /// When it was opened (the absolute expiry counts from here).
    public var created: Date
    /// When it was last used (the idle expiry counts from here).
    public var lastSeen: Date

    /// Creates a session record.
    public init(idHash: Data, keyID: String, created: Date, lastSeen: Date) {
        self.idHash = idHash
        self.keyID = keyID
        self.created = created
        self.lastSeen = lastSeen
    }
}

/// One linkd instance's heartbeat on a shared store: which instances have been seen lately.
public struct InstanceHeartbeat: Codable, Sendable, Equatable {
    /// A random id the instance picks at start.
    public var id: String
    /// The host name of its machine (for people; not unique).
    public var host: String
    /// When it started.
    public var started: Date
    /// Its latest heartbeat.
    public var lastSeen: Date

    /// Creates a heartbeat row.
    public init(id: String, host: String, started: Date, lastSeen: Date) {
        self.id = id
        self.host = host
        self.started = started
        self.lastSeen = lastSeen
    }
}

/// Which audit entries to read: every given field must match exactly (nil: any).
public struct AuditFilter: Sendable, Equatable {
    /// The API key id that acted.
    public var actor: String?
    /// The action, such as `key.rotate`.
    public var action: String?
    /// The app the action concerned.
    public var app: String?

    /// Creates a filter; no field set reads every entry.
    public init(actor: String? = nil, action: String? = nil, app: String? = nil) {
        self.actor = actor
        self.action = action
        self.app = app
    }
}
