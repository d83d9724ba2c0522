import Foundation
import Logging
import Synchronization

// Following a shared backend's change feed, and (re)loading the revocation set.
extension StoreFront {
    /// How often the feed's old changes are pruned while it is followed.
    static let pruneInterval: Duration = .seconds(60)

    /// The longest time a change made on another instance takes to be in force here while the database answers
    /// (zero for a store no other instance shares).
    public var propagationBound: Duration { backend.propagationBound }

    /// The change-feed version applied here (nil for a store no other instance shares).
    public var changeFeedVersion: Int64? {
        backend.schedule == nil ? nil : seenVersion.withLock { $0 }
    }

    /// Keeps this instance current with changes made by other instances (revocations, deletions, signing keys,
    /// manifests) until the task is cancelled; calls `onKeysChanged` after another instance changed signing keys,
    /// `onManifestsChanged` after it published a manifest, and both after every full reload. Two loops: a listening
    /// connection (the first time it listens, soon after the open, it catches up from the version the open noted;
    /// reconnected after a loss, it reloads everything) and a poll every `pollInterval`, with a full reload every
    /// `fullResyncInterval`. Returns at once for a store no other instance shares.
    public func synchronize(
        onKeysChanged: @escaping @Sendable () async -> Void,
        onManifestsChanged: @escaping @Sendable () async -> Void = {}
    ) async throws {
        guard let schedule = backend.schedule else { return }
        let handlers = ChangeHandlers(keys: onKeysChanged, manifests: onManifestsChanged)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.listenLoop(handlers) }
            group.addTask { await self.pollLoop(schedule, handlers) }
            await group.waitForAll()
        }
    }

    /// How long after the open the first listening catches up from the version noted at open instead of reloading
    /// everything: well within the feed's retention (an hour), so no change since the open can have been pruned.
    static let firstListenCatchUpWindow: Duration = .seconds(600)

    private func listenLoop(_ handlers: ChangeHandlers) async {
        var failures = 0
        var listenedBefore = false
        while !Task.isCancelled {
            do {
                try await backend.listen {
                    // Listening now. The first time, soon after the open, the feed holds every change since the
                    // version the open noted: catching up is exact, and keeps the link cache the open warmed. After
                    // a lost connection, a full reload covers whatever happened while no one listened.
                    if listenedBefore || ContinuousClock.now - self.openedAt >= Self.firstListenCatchUpWindow {
                        try await self.fullResync(handlers)
                    } else {
                        try await self.catchUp(handlers)
                        // As after a full reload, the keys and manifests are read again.
                        await handlers.keys()
                        await handlers.manifests()
                    }
                    listenedBefore = true
                    failures = 0
                } onAnnouncement: {
                    try await self.catchUp(handlers)
                }
            } catch {
                if Task.isCancelled { return }
                failures += 1
                if failures == 1 { logger.warning("lost the change feed; reconnecting", metadata: ["error": "\(error)"]) }
            }
            try? await Task.sleep(for: .milliseconds(min(5000, 250 * (1 << min(failures, 5)))))
        }
    }

    private func pollLoop(_ schedule: FeedSchedule, _ handlers: ChangeHandlers) async {
        var lastFull = ContinuousClock.now
        var lastPrune = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: schedule.pollInterval)
            if Task.isCancelled { return }
            do {
                if ContinuousClock.now - lastFull >= schedule.fullResyncInterval {
                    try await fullResync(handlers)
                    lastFull = .now
                } else {
                    try await catchUp(handlers)
                }
                if ContinuousClock.now - lastPrune >= Self.pruneInterval {
                    try await backend.pruneChanges()
                    lastPrune = .now
                }
            } catch {
                logger.debug("change poll failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Applies every change newer than the last one applied: a revocation is added to the set and its link's
    /// cached record dropped, a deletion drops the cached record, a key change calls the keys' handler (once), a
    /// manifest change drops the record cache (a publish may move links) and calls the manifests' handler (once).
    func catchUp(_ handlers: ChangeHandlers) async throws {
        let (keysChanged, manifestsChanged) = try await syncLock.run {
            let seen = self.seenVersion.withLock { $0 }
            var highest = seen
            var keys = false
            var manifests = false
            var revoked: [RevocationKey] = []
            for change in try await self.backend.changes(after: seen) {
                highest = max(highest, change.version)
                switch change.kind {
                case .revocation:
                    if let key = RevocationKey(hex: change.subject, generation: UInt32(truncatingIfNeeded: change.generation)) {
                        revoked.append(key)
                    }
                    self.cache.remove(change.subject)
                case .deletion: self.cache.remove(change.subject)
                case .keys: keys = true
                case .manifest: manifests = true
                case nil: break
                }
            }
            self.revocations.insert(revoked)
            if manifests { self.cache.removeAll() }
            self.seenVersion.withLock { $0 = max($0, highest) }
            return (keys, manifests)
        }
        if manifestsChanged { requestWarmup() }
        if keysChanged { await handlers.keys() }
        if manifestsChanged { await handlers.manifests() }
    }

    /// Reloads everything: the revocation set (added to; a revocation is never undone), the record cache (read again
    /// in the background where the front warms its cache — the cache answers meanwhile and drops what is no longer
    /// in the store at the end, `warmLinkCache(refreshing:)`; emptied otherwise), the unknown short ids (dropped) and
    /// the keys (through the handlers).
    func fullResync(_ handlers: ChangeHandlers) async throws {
        try await syncLock.run {
            try await self.loadRevocations()
            if !self.warmsLinkCache { self.cache.removeAll() }
            self.shortIDs.removeUnknown()
            self.customPaths.removeAll()
        }
        requestWarmup(refreshing: true)
        await handlers.keys()
        await handlers.manifests()
    }

    /// Streams the backend's revocation rows into the set; for a shared backend, after noting the feed's version
    /// (so that nothing committed during the load is missed: the feed is read from there on).
    func loadRevocations() async throws {
        let version: Int64? = backend.schedule == nil ? nil : try await backend.currentVersion()
        let loader = RevocationLoader(into: revocations)
        try await backend.streamRevocations(into: loader)
        loader.finish()
        if let version { seenVersion.withLock { $0 = max($0, version) } }
        revocations.markLoaded()
    }
}

/// What following the feed calls when keys or manifests changed elsewhere.
struct ChangeHandlers: Sendable {
    /// Signing keys changed.
    let keys: @Sendable () async -> Void
    /// A manifest was published, rolled back or retired.
    let manifests: @Sendable () async -> Void
}
