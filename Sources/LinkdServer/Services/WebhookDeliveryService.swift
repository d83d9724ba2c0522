import Foundation
import LinkStore
import Logging
import ServiceLifecycle
import TokenSigning

/// Delivers the webhook outbox, at least once: every `pollInterval` it leases the due deliveries (at most
/// `batchSize`, under this instance's owner id; on PostgreSQL no other instance gets them while the lease lasts),
/// sends them at once, each over libcurl on a thread of its own, and records each attempt — delivered (the row
/// goes), failed (tried again after the retry schedule's delay), or given up (the last attempt failed, or the
/// receiver answered 410 Gone: the row goes and the endpoint is marked failing). A delivery whose instance died
/// mid-attempt is leased again when its lease runs out (at once on SQLite, where no other process shares the file).
///
/// At graceful shutdown no new batch starts, and the attempts under way finish and are recorded (each is bounded by
/// the delivery time limit) before the store closes.
struct WebhookDeliveryService: Service {
    let store: StoreFront
    let sender: WebhookSender
    let settings: WebhookDeliverySettings
    let metrics: WebhookMetrics
    let logger: Logger
    /// This instance's lease owner id.
    let owner = "linkd-" + LinkID.random().hex.prefix(12)

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let leased = await deliverDue()
            if leased == settings.batchSize { continue }  // more may be due
            if let depth = try? await store.webhookOutboxDepth() { metrics.setOutboxDepth(depth) }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: settings.pollInterval) }
        }
    }

    /// Leases and sends the due deliveries; how many were leased.
    func deliverDue(now: Date = Date()) async -> Int {
        let due: [WebhookDelivery]
        do {
            due = try await store.claimWebhookDeliveries(owner: owner, limit: settings.batchSize, now: now, lease: settings.lease)
        } catch {
            logger.warning("cannot read the webhook outbox", metadata: ["error": "\(error)"])
            return 0
        }
        await withTaskGroup(of: Void.self) { group in
            for delivery in due { group.addTask { await attempt(delivery) } }
        }
        return due.count
    }

    /// Sends one delivery and records how it went.
    private func attempt(_ delivery: WebhookDelivery) async {
        let started = Date()
        let clock = ContinuousClock.now
        let result = await sender.send(delivery, at: started)
        let elapsed = ContinuousClock.now - clock
        let number = delivery.attempts + 1
        let (disposition, outcome): (WebhookDisposition, WebhookAttempt.Outcome) =
            if result.delivered {
                (.delivered, .delivered)
            } else if !result.gone, let delay = settings.retries.delay(afterAttempt: number) {
                (.retry(next: Date().addingTimeInterval(delay)), .retrying)
            } else {
                (.abandon, .failed)
            }
        let record = WebhookAttempt(
            endpointID: delivery.endpointID, eventID: delivery.eventID, type: delivery.type, attempt: number, at: started,
            status: result.status, outcome: outcome, durationMilliseconds: WebhookSender.milliseconds(elapsed),
            error: result.error)
        metrics.record(outcome)
        let metadata: Logger.Metadata = [
            "endpoint": "\(delivery.endpointID)", "event": "\(delivery.eventID)", "type": "\(delivery.type)",
            "attempt": "\(number)", "error": "\(result.error ?? "")",
        ]
        switch outcome {
        case .delivered: logger.debug("webhook delivered", metadata: metadata)
        case .retrying: logger.warning("webhook delivery failed; it will be retried", metadata: metadata)
        case .failed: logger.error("webhook delivery given up; the endpoint is marked failing", metadata: metadata)
        }
        do {
            try await store.finishWebhookDelivery(
                delivery, owner: owner, attempt: record, disposition: disposition, keepAttempts: settings.keptAttempts)
        } catch {
            // The row keeps its lease and is tried again when the lease runs out: at least once, never lost.
            logger.warning("cannot record a webhook attempt", metadata: metadata.merging(["storeError": "\(error)"]) { $1 })
        }
    }
}
