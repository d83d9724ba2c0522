#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import Logging

/// The process's open-file limit, which bounds the connections it can hold: raised to the hard limit at start (as
/// nginx's `worker_rlimit_nofile` or Go's runtime do), with a warning when `maxConnections` cannot fit under it.
package enum FileDescriptorLimit {
    /// Descriptors kept for what is not a connection: the store, the listeners, origin fetches, logs.
    static let reserve = 256

    /// Raises the soft limit to the hard one; returns the limit now in force.
    @discardableResult
    package static func raise(for maxConnections: Int, logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return maxConnections + reserve }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = Int(clamping: limit.rlim_cur)  // RLIM_INFINITY (all ones) clamps to Int.max
        if available < maxConnections + reserve {
            logger.warning(
                "the open-file limit is below maxConnections plus \(reserve): past it new connections fail at accept, not with a 503",
                metadata: ["limit": "\(available)", "maxConnections": "\(maxConnections)"])
        }
        return available
    }
}
