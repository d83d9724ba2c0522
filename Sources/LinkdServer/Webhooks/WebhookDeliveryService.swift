import Foundation
import LinkStore
import Logging
import ServiceLifecycle
import TokenSigning

/// Delivers the webhook outbox, at least once. It keeps up to `batchSize` attempts under way: whenever there is
/// room it leases due deliveries (under this instance's owner id; on PostgreSQL no other instance gets them while the
/// lease lasts) and starts each at once, over libcurl on a thread of its own, so one slow endpoint holds one place,
/// not the others. It looks again when an attempt ends, and every `pollInterval`. Each attempt is recorded —
/// delivered (the row goes), failed (tried again after the retry schedule's delay), or given up (the last attempt
/// failed, or the receiver answered 410 Gone: the row goes and the endpoint is marked failing). A delivery whose
/// instance died mid-attempt is leased again when its lease runs out (at once on SQLite, where no other process
/// shares the file).
///
/// At graceful shutdown no new attempt starts, and those under way finish and are recorded (each is bounded by the
/// delivery time limit) before the store closes.
struct WebhookDeliveryService: Service {
    let store: StoreFront
    let sender: WebhookSender
    let settings: WebhookDeliverySettings
    let metrics: WebhookMetrics
    let logger: Logger
    /// This instance's lease owner id.
    let owner = "linkd-" + LinkID.random().hex.prefix(12)

    /// What wakes the loop.
    private enum Wake { case attemptEnded, tick }

    func run() async throws {
        await withTaskGroup(of: Wake.self) { group in
            var underWay = 0
            var ticking = false
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                let room = settings.batchSize - underWay
                let due = room > 0 ? await lease(room) : []
                for delivery in due {
                    underWay += 1
                    group.addTask {
                        await attempt(delivery)
                        return .attemptEnded
                    }
                }
                if !due.isEmpty && underWay < settings.batchSize { continue }  // more may be due
                if !ticking {
                    ticking = true
                    group.addTask {
                        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: settings.pollInterval) }
                        return .tick
                    }
                }
                switch await group.next() {
                case .attemptEnded: underWay -= 1
                case .tick:
                    ticking = false
                    if let depth = try? await store.webhookOutboxDepth() { metrics.setOutboxDepth(depth) }
                case nil: break
                }
            }
            // Leaving the group waits for the attempts under way (and the tick, cut short by the shutdown).
        }
    }

    /// Leases at most `limit` due deliveries; none when the store fails (logged).
    private func lease(_ limit: Int) async -> [WebhookDelivery] {
        do {
            return try await store.claimWebhookDeliveries(owner: owner, limit: limit, now: Date(), lease: settings.lease)
        } catch {
            logger.warning("cannot read the webhook outbox", metadata: ["error": "\(error)"])
            return []
        }
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
