import Foundation
import LinkdHTTP
import LinkStore
import TokenSigning

/// Makes the webhook events linkd emits: each an id (`msg_…`, the `webhook-id` of every attempt) and the exact body
/// `{"type","timestamp","data"}`, fixed when the event happens, so every attempt sends the same bytes.
///
/// **Emitting one** (the deferred claim's `link.claimed` included): make it here, then give it to the store call
/// that makes the change, which writes it to the outbox in its own transaction — in the `AuditEntry`'s `events`
/// for an audited change, else as the call's `events` parameter (`StoreFront.createLink(_:events:)`; a backend
/// method of another concern takes `events: [WebhookEvent]` and calls `SQLiteBackend.enqueueWebhookEvents(_:in:)` /
/// `PostgresBackend.enqueueWebhookEvents(_:on:logger:)` inside its transaction). An event no endpoint subscribes
/// to writes nothing.
enum WebhookEvents {
    /// What a link event says about the link (never its token).
    struct LinkData: Encodable {
        let id: String
        let app: String
        let route: String
        let params: [String: String]
        let owner: String?
        let title: String?
        let status: String
        let createdAt: Date
        let expiresAt: Date

        init(_ record: LinkRecord) {
            id = record.id
            app = record.app
            route = record.route
            params = record.params
            owner = record.owner
            title = record.title
            status = record.status.rawValue
            createdAt = record.created
            expiresAt = record.expires
        }
    }

    /// A claimed link: the link, and the platform whose store the claim code went through.
    struct ClaimData: Encodable {
        let link: LinkData
        let platform: String?
    }

    /// An owner's links revoked.
    struct OwnerData: Encodable {
        let app: String
        let owner: String
        let revoked: Int
    }

    /// A signing key changed (never its secret).
    struct KeyData: Encodable {
        let app: String
        let kid: UInt32
        let suite: String
        let state: String

        init(_ key: KeyInfo) {
            app = key.app
            kid = key.kid
            suite = key.suite.name
            state = key.state.rawValue
        }
    }

    private struct Body<Payload: Encodable & Sendable>: Encodable, Sendable {
        let type: String
        let timestamp: Date
        let data: Payload
    }

    /// `link.created`.
    static func linkCreated(_ record: LinkRecord, at date: Date) -> WebhookEvent {
        make(.linkCreated, app: record.app, at: date, data: LinkData(record))
    }

    /// `link.revoked`.
    static func linkRevoked(_ record: LinkRecord, at date: Date) -> WebhookEvent {
        var revoked = record
        revoked.status = .revoked
        return make(.linkRevoked, app: record.app, at: date, data: LinkData(revoked))
    }

    /// `link.deleted` (the origin says the item is gone).
    static func linkDeleted(_ record: LinkRecord, at date: Date) -> WebhookEvent {
        make(.linkDeleted, app: record.app, at: date, data: LinkData(record))
    }

    /// `link.claimed`: a deferred deep link's claim code was claimed (`platform`: `android`, `ios`, or nil).
    static func linkClaimed(_ record: LinkRecord, platform: String?, at date: Date) -> WebhookEvent {
        make(.linkClaimed, app: record.app, at: date, data: ClaimData(link: LinkData(record), platform: platform))
    }

    /// `owner.revoked`, with how many links were revoked.
    static func ownerRevoked(app: String, owner: String, revoked: Int, at date: Date) -> WebhookEvent {
        make(.ownerRevoked, app: app, at: date, data: OwnerData(app: app, owner: owner, revoked: revoked))
    }

    /// `key.rotated`: `key` is the new active key.
    static func keyRotated(_ key: KeyInfo, at date: Date) -> WebhookEvent {
        make(.keyRotated, app: key.app, at: date, data: KeyData(key))
    }

    /// `key.retired`.
    static func keyRetired(_ key: KeyInfo, at date: Date) -> WebhookEvent {
        var retired = key
        retired.state = .retired
        return make(.keyRetired, app: key.app, at: date, data: KeyData(retired))
    }

    /// An event of `type` for `app`'s endpoints, with a fresh message id; its body is written when a store needs it.
    static func make(_ type: WebhookEventType, app: String, at date: Date, data: some Encodable & Sendable) -> WebhookEvent {
        let body = Body(type: type.rawValue, timestamp: date, data: data)
        return WebhookEvent(id: newMessageID(), app: app, type: type) {
            // The values above are strings, numbers and dates: encoding them cannot fail.
            (try? JSONBody.encoder.encode(body)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
    }

    /// `msg_` and 32 hex digits (128 random bits).
    static func newMessageID() -> String {
        "msg_" + LinkID.random().hex
    }
}
