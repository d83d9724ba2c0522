import Foundation
import LinkStore
import Logging
import ServiceLifecycle
import Synchronization

/// Makes an origin's "this item is gone" (404/410 for a link's item) durable: the link is marked `deleted` in the
/// store, for good, with an audit entry by the actor `origin` — off the request path.
///
/// The share path reports the link (`report`: a set insert and a queue push, nothing awaited, so the event loop
/// never waits) and this service writes it. A link reported again while its write is pending is not queued twice;
/// the store's conditional update makes the audit entry once per link even when instances race. A write that fails
/// (database away) is dropped and logged: the next visitor's request reports the link again. At graceful shutdown
/// the queued reports are written before the service returns.
final class LinkDeletions: Service {
    /// The audit actor of a deletion the origin reported.
    static let actor = "origin"
    /// The audit action (and log `action`) of a deletion.
    static let action = AuditAction.linkDelete
    /// The most reports queued at once; past it a report is dropped (a later visitor reports the link again).
    static let maxQueued = 10_000

    private let store: StoreFront
    private let logger: Logger
    private let queue: AsyncStream<String>
    private let queueInput: AsyncStream<String>.Continuation
    /// Link ids reported and not yet written.
    private let queued = Mutex<Set<String>>([])

    /// A recorder writing to `store`, logging to `logger`.
    init(store: StoreFront, logger: Logger) {
        self.store = store
        self.logger = logger
        (queue, queueInput) = AsyncStream.makeStream(of: String.self)
    }

    /// Reports that the origin answered 404/410 for link `linkID`'s item. Returns at once (safe on an event loop).
    func report(linkID: String) {
        let fresh = queued.withLock { ids in ids.count < Self.maxQueued && ids.insert(linkID).inserted }
        guard fresh else { return }
        if case .terminated = queueInput.yield(linkID) { _ = queued.withLock { $0.remove(linkID) } }
    }

    /// Writes reported deletions until graceful shutdown, then the ones still queued.
    func run() async throws {
        await withGracefulShutdownHandler {
            for await id in queue { await record(linkID: id) }
        } onGracefulShutdown: { [queueInput] in
            queueInput.finish()
        }
    }

    /// Marks link `linkID` deleted and, when this call changed it, writes the audit entry with it and logs it at notice.
    /// A store failure is logged at warning; the link is taken off the queue first, so the next visit reports it anew.
    func record(linkID: String, at date: Date = Date()) async {
        var deleted: LinkRecord?
        var failure: (any Error)?
        do {
            // nil: no such link, or not active any more (deleted already, maybe by another instance, or revoked).
            // The audit entry goes with the change, in its transaction (written only when the link changed).
            deleted = try await store.markLinkDeleted(id: linkID) { record in
                AuditEntry(
                    at: date, actor: Self.actor, action: Self.action.rawValue, detail: "\(record.app) \(record.id)", app: record.app,
                    events: [WebhookEvents.linkDeleted(record, at: date)])
            }
        } catch {
            failure = error
        }
        _ = queued.withLock { $0.remove(linkID) }
        if let failure {
            logger.warning("cannot record a link deleted by its origin", metadata: [
                "link": "\(linkID)", "error": "\(failure)",
            ])
        } else if let deleted {
            logger.notice("link deleted by its origin", metadata: [
                "action": "\(Self.action.rawValue)", "actor": "\(Self.actor)", "app": "\(deleted.app)", "link": "\(deleted.id)",
            ])
        }
    }
}
