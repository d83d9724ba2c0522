#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the file system says of a path, for the daemon's files of secrets and certificates: whether an entry is
/// there (a symbolic link counts, unfollowed), and a stamp that changes when a file is replaced or rewritten.
/// (Here beside `SecretFile` so that the server reads `stat` through one module.)
public enum FileProbe {
    /// Whether anything is at `path`: a file, a directory, or a symbolic link (not followed, dangling or not).
    public static func entryExists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// `path`'s modification time (to the nanosecond), size and inode, through symbolic links (as a renewal tool
    /// swaps them); nil when nothing is there.
    public static func stamp(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Glibc)
        return "\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec):\(status.st_size):\(status.st_ino)"
        #else
        return "\(status.st_mtimespec.tv_sec).\(status.st_mtimespec.tv_nsec):\(status.st_size):\(status.st_ino)"
        #endif
    }
}
