import ServiceLifecycle

/// The loop of the services that do a piece of work every so often and once more at shutdown.
enum ServiceLoop {
    /// Runs `work` every `interval` until graceful shutdown (which cuts the wait short), then once more.
    static func repeating(every interval: Duration, _ work: () async -> Void) async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            await work()
        }
        await work()
    }
}
