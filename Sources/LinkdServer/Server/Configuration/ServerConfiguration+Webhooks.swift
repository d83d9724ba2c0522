import LinkRouter

/// Webhook delivery.
///
/// Keys (YAML file key — type — default):
/// - `allowLoopbackWebhooks` — Bool — `false`: lets an endpoint be plain `http` to a loopback address (127.0.0.0/8,
///   `::1`, or a name resolving only to them), for development and tests. Never set it in production: without it
///   endpoints are `https` only, and never delivered to a loopback, private, link-local, multicast or unspecified
///   address.
/// - `webhookRetryBaseSeconds` — Double 0.01–3600 — `5`: the delay before the first retry of a failed delivery;
///   each next delay doubles, at most 6 hours, each ±20 % at random.
/// - `webhookMaxAttempts` — Int 1–30 — `16`: attempts of one event (with the defaults the last comes about a day
///   after the first); then the event is given up and its endpoint marked failing.
/// - `webhookPollSeconds` — Double 0.05–60 — `1`: how often the outbox is looked at for due deliveries (an event
///   waits at most this long before its first attempt).
extension ServerConfiguration {
    /// Sets one of the keys above from a file's YAML value.
    mutating func setWebhookKey(_ key: Key, from value: YAMLValue) throws {
        switch key {
        case .allowLoopbackWebhooks: allowLoopbackWebhooks = try value.bool()
        case .webhookRetryBaseSeconds: webhookRetryBaseSeconds = try value.double()
        case .webhookMaxAttempts: webhookMaxAttempts = try value.int()
        case .webhookPollSeconds: webhookPollSeconds = try value.double()
        default: break
        }
    }

    /// Refuses webhook settings that cannot work.
    func validateWebhooks() throws {
        guard (0.01...3600).contains(webhookRetryBaseSeconds) else {
            throw ConfigurationError(message: "webhookRetryBaseSeconds must be 0.01–3600")
        }
        guard (1...30).contains(webhookMaxAttempts) else { throw ConfigurationError(message: "webhookMaxAttempts must be 1–30") }
        guard (0.05...60).contains(webhookPollSeconds) else { throw ConfigurationError(message: "webhookPollSeconds must be 0.05–60") }
    }

    /// The delivery settings these keys make.
    var webhookDelivery: WebhookDeliverySettings {
        WebhookDeliverySettings(
            allowLoopback: allowLoopbackWebhooks,
            retries: WebhookRetrySchedule(base: webhookRetryBaseSeconds, maxAttempts: webhookMaxAttempts),
            pollInterval: .milliseconds(Int(webhookPollSeconds * 1000)))
    }
}
