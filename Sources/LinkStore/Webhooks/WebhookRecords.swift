public import Foundation

/// The kinds of webhook event linkd emits. An endpoint subscribes to some of them.
public enum WebhookEventType: String, Sendable, CaseIterable, Codable {
    /// A share link was made (`POST /v1/links`).
    case linkCreated = "link.created"
    /// A link was revoked (`DELETE /v1/links/{id}`).
    case linkRevoked = "link.revoked"
    /// A link was marked deleted because its origin says the item is gone.
    case linkDeleted = "link.deleted"
    /// A deferred deep link's claim code was claimed (`POST /v1/claims/{code}`).
    case linkClaimed = "link.claimed"
    /// An app's signing key was rotated.
    case keyRotated = "key.rotated"
    /// A signing key was retired.
    case keyRetired = "key.retired"
    /// Every link of an owner was revoked (`POST /v1/admin/revocations`).
    case ownerRevoked = "owner.revoked"
}

/// One event to deliver: written to the outbox in the transaction of the action it reports, one row per endpoint of
/// its app subscribed to its type (none when no endpoint is).
///
/// **How to emit an event.** Build it with the server's `WebhookEvents` (which makes the id and the body), then
/// hand it to the store call that makes the change, which writes it in the change's own transaction:
/// - on an action that is audited, put it in the `AuditEntry`'s `events`: every backend writes an entry's events
///   where it writes the entry (SQLite: when the entry is inserted; PostgreSQL: `insertAudit`);
/// - on an action that is not audited, pass `events` to the store call (`StoreFront.createLink(_:events:)`), whose
///   backend writes them inside its transaction with `SQLiteBackend.enqueueWebhookEvents(_:in:)` or
///   `PostgresBackend.enqueueWebhookEvents(_:on:logger:)`.
public struct WebhookEvent: Sendable, Equatable {
    /// The message id, sent as `webhook-id` on every attempt (the receiver's idempotency key): `msg_…`.
    public var id: String
    /// The app whose endpoints receive it.
    public var app: String
    /// What happened.
    public var type: WebhookEventType
    /// The exact body sent: `{"type","timestamp","data"}`. Written each time it is asked for: the SQLite store asks
    /// only when an endpoint of the app subscribes to the type, so a link made in an app without endpoints never
    /// encodes one (it was a seventh of a creation's CPU).
    public var payload: String { writePayload() }
    private let writePayload: @Sendable () -> String

    /// Creates an event with its body written.
    public init(id: String, app: String, type: WebhookEventType, payload: String) {
        self.init(id: id, app: app, type: type, writingPayload: { payload })
    }

    /// Creates an event whose body `writingPayload` writes when a store needs it (the same body each time).
    public init(id: String, app: String, type: WebhookEventType, writingPayload: @escaping @Sendable () -> String) {
        self.id = id
        self.app = app
        self.type = type
        self.writePayload = writingPayload
    }

    /// The same message: id, app, type and body.
    public static func == (lhs: WebhookEvent, rhs: WebhookEvent) -> Bool {
        lhs.id == rhs.id && lhs.app == rhs.app && lhs.type == rhs.type && lhs.payload == rhs.payload
    }
}

/// A webhook endpoint: where an app's events go, and the sealed secret they are signed with.
public struct WebhookEndpoint: Sendable, Equatable {
    /// Its id (`wh_…`).
    public var id: String
    /// The app whose events it receives.
    public var app: String
    /// The URL deliveries are posted to.
    public var url: String
    /// The event types it receives.
    public var events: [WebhookEventType]
    /// Whether deliveries are made (an admin's switch; pending deliveries wait while it is off).
    public var enabled: Bool
    /// The signing secret, sealed with the master key (TokenSigning's `WebhookSecret`).
    public var sealedSecret: Data
    /// When it was made.
    public var created: Date
    /// When it was last changed.
    public var updated: Date
    /// Since when it is failing: an event exhausted its retries. No new event is queued for it and its pending
    /// deliveries wait, until an admin enables it again (which clears this).
    public var failingSince: Date?

    /// Creates an endpoint.
    public init(
        id: String, app: String, url: String, events: [WebhookEventType], enabled: Bool, sealedSecret: Data,
        created: Date, updated: Date, failingSince: Date? = nil
    ) {
        self.id = id
        self.app = app
        self.url = url
        self.events = events
        self.enabled = enabled
        self.sealedSecret = sealedSecret
        self.created = created
        self.updated = updated
        self.failingSince = failingSince
    }

    /// The stored form of `events`: the types' names, comma-separated.
    static func eventsText(_ events: [WebhookEventType]) -> String { events.map(\.rawValue).joined(separator: ",") }
    /// `events` read back from `eventsText` (names this build does not know are skipped).
    static func events(_ text: String) -> [WebhookEventType] {
        text.split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) }
    }
}

/// A delivery leased to one instance: an outbox row with what it needs to be sent.
public struct WebhookDelivery: Sendable, Equatable {
    /// The outbox row.
    public var seq: Int64
    /// The event's message id (`webhook-id`).
    public var eventID: String
    /// The endpoint.
    public var endpointID: String
    /// The endpoint's URL.
    public var url: String
    /// The endpoint's sealed secret.
    public var sealedSecret: Data
    /// The event type.
    public var type: String
    /// The body.
    public var payload: String
    /// Attempts made before this one.
    public var attempts: Int
    /// When the event was queued.
    public var created: Date

    /// Creates a leased delivery.
    public init(
        seq: Int64, eventID: String, endpointID: String, url: String, sealedSecret: Data, type: String, payload: String,
        attempts: Int, created: Date
    ) {
        self.seq = seq
        self.eventID = eventID
        self.endpointID = endpointID
        self.url = url
        self.sealedSecret = sealedSecret
        self.type = type
        self.payload = payload
        self.attempts = attempts
        self.created = created
    }
}

/// One attempt in an endpoint's delivery log.
public struct WebhookAttempt: Sendable, Equatable {
    /// How an attempt ended.
    public enum Outcome: String, Sendable {
        /// The receiver answered 2xx.
        case delivered
        /// It failed; the event is tried again later.
        case retrying
        /// It failed and the event is given up (retries exhausted, or the receiver answered 410 Gone).
        case failed
    }

    /// Sequence number (assigned by the store).
    public var seq: Int64?
    /// The endpoint.
    public var endpointID: String
    /// The event's message id.
    public var eventID: String
    /// The event type.
    public var type: String
    /// Which attempt (1 first).
    public var attempt: Int
    /// When it started.
    public var at: Date
    /// The receiver's HTTP status, nil when none came (refused, timed out, not allowed).
    public var status: Int?
    /// How it ended.
    public var outcome: Outcome
    /// How long it took.
    public var durationMilliseconds: Int
    /// Why it failed (never a secret), nil when delivered.
    public var error: String?

    /// Creates a log row.
    public init(
        seq: Int64? = nil, endpointID: String, eventID: String, type: String, attempt: Int, at: Date, status: Int?,
        outcome: Outcome, durationMilliseconds: Int, error: String?
    ) {
        self.seq = seq
        self.endpointID = endpointID
        self.eventID = eventID
        self.type = type
        self.attempt = attempt
        self.at = at
        self.status = status
        self.outcome = outcome
        self.durationMilliseconds = durationMilliseconds
        self.error = error
    }
}

/// What becomes of a leased delivery after an attempt.
public enum WebhookDisposition: Sendable, Equatable {
    /// Delivered: the outbox row goes.
    case delivered
    /// Failed: tried again at `next`.
    case retry(next: Date)
    /// Given up: the outbox row goes and the endpoint is marked failing.
    case abandon
}
