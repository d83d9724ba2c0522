import Foundation
import LinkdHTTP
import LinkStore
import OutboundHTTP
import TokenSigning

/// Sends one attempt of a delivery: signed per Standard Webhooks, posted over `OutboundHTTP` (libcurl on a thread
/// of its own) with the connect and total limits and the response cap of `settings`, no redirect followed, and
/// connected only to an address `policy` allows — checked on the address curl is about to connect to.
struct WebhookSender: Sendable {
    let settings: WebhookDeliverySettings
    let policy: WebhookURLPolicy
    let masterKey: MasterKey

    /// How an attempt went.
    struct Outcome: Sendable {
        /// The receiver's status, nil when no answer came.
        let status: Int?
        /// Why it failed (never a secret); nil when it was a 2xx.
        let error: String?
        /// Whether the receiver took it (2xx).
        var delivered: Bool { error == nil }
        /// Whether the receiver said the endpoint is gone for good (410 Gone): it is marked failing at once.
        var gone: Bool { status == 410 }
    }

    /// The headers of an attempt made at `timestamp` (seconds since 1970).
    func headers(_ delivery: WebhookDelivery, timestamp: Int64) throws -> [OutboundHeader] {
        let secret = try WebhookSecret(
            sealed: Array(delivery.sealedSecret), masterKey: masterKey, endpointID: delivery.endpointID)
        let signature = try secret.signature(messageID: delivery.eventID, timestamp: timestamp, body: Array(delivery.payload.utf8))
        return [
            OutboundHeader("Content-Type", "application/json"),
            OutboundHeader("User-Agent", "linkd-webhooks"),
            OutboundHeader("webhook-id", delivery.eventID),
            OutboundHeader("webhook-timestamp", String(timestamp)),
            OutboundHeader("webhook-signature", signature),
        ]
    }

    /// Posts `delivery` now.
    func send(_ delivery: WebhookDelivery, at date: Date) async -> Outcome {
        let headers: [OutboundHeader]
        do {
            headers = try self.headers(delivery, timestamp: Int64(date.timeIntervalSince1970))
        } catch {
            return Outcome(status: nil, error: "the endpoint's secret cannot be opened (another master key?)")
        }
        let policy = self.policy
        let request = OutboundRequest(
            method: "POST", url: delivery.url, headers: headers, body: Array(delivery.payload.utf8),
            limits: OutboundLimits(
                connectTimeoutMilliseconds: Self.milliseconds(settings.connectTimeout),
                totalTimeoutMilliseconds: Self.milliseconds(settings.totalTimeout),
                maxResponseBytes: settings.maxResponseBytes),
            allowedSchemes: settings.allowLoopback ? "http,https" : "https",
            allowsAddress: { policy.allows(IPAddress(networkBytes: $0)) })
        switch await OutboundHTTP.perform(request) {
        case .success(let response) where (200..<300).contains(response.status):
            return Outcome(status: response.status, error: nil)
        case .success(let response):
            return Outcome(status: response.status, error: "the endpoint answered \(response.status)")
        case .failure(let failure) where failure.kind == .tooLarge:
            // The answer's status is what counts, but one that overran the cap is not taken as a success.
            return Outcome(status: nil, error: "the endpoint's answer was larger than \(settings.maxResponseBytes) bytes")
        case .failure(let failure):
            return Outcome(status: nil, error: failure.description)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

extension IPAddress {
    /// The address of 4 (IPv4) or 16 (IPv6) bytes in network order; any other length reads as `::` (unspecified,
    /// which the webhook policy refuses).
    init(networkBytes bytes: [UInt8]) {
        switch bytes.count {
        case 4: self.init(bytes: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + bytes)
        case 16: self.init(bytes: bytes)
        default: self.init(bytes: [UInt8](repeating: 0, count: 16))
        }
    }
}
