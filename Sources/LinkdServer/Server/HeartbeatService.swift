import Foundation
import LinkStore
import Logging
import ServiceLifecycle
import TokenSigning

/// Who this instance is on its store: a random id picked at start, its machine's host name, its start time.
struct InstanceIdentity: Sendable {
    /// `inst_` + 12 hex digits, new at every start.
    let id: String
    /// The machine's host name (for people).
    let host: String
    /// When this process started serving.
    let started: Date

    /// A new identity for this process.
    static func make(now: Date = Date()) -> InstanceIdentity {
        InstanceIdentity(id: "inst_" + LinkID.random().hex.prefix(12), host: ProcessInfo.processInfo.hostName, started: now)
    }
}

/// Writes this instance's heartbeat to the store every `interval`, so the console can show which instances share
/// it (on SQLite, only this one). A failed write is logged at debug and tried again at the next beat: the heartbeat
/// is information, never a reason to stop.
struct HeartbeatService: Service {
    let store: StoreFront
    let identity: InstanceIdentity
    let logger: Logger

    /// How often the heartbeat is written.
    static let interval: Duration = .seconds(10)
    /// An instance whose last heartbeat is older than this is no longer listed.
    static let staleAfter: TimeInterval = 30

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await beat()
                try await Task.sleep(for: Self.interval)
            }
        }
    }

    /// Writes one heartbeat now.
    func beat() async {
        let now = Date()
        do {
            try await store.heartbeat(InstanceHeartbeat(id: identity.id, host: identity.host, started: identity.started, lastSeen: now))
        } catch {
            logger.debug("cannot write the instance heartbeat", metadata: ["error": "\(error)"])
        }
    }
}
