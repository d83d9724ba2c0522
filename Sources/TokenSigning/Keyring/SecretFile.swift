import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files and directories that hold secrets — the master key, key records, the first admin key: private to linkd's
/// user, never reached through a symbolic link, and written so that a crash leaves either the old or the new content.
///
/// Every refusal is a `TokenError` naming the path, with code `insecureFile` (a file or directory others may read, a
/// symbolic link, something that is not a regular file) or `storage` (an I/O failure, a file that exists already).
public enum SecretFile {
    /// Creates `path`, which must not exist, holding `contents` (mode 0600): written under a random name in the same
    /// directory (`O_CREAT|O_EXCL|O_NOFOLLOW`), fsynced, then linked to `path` — which fails when anything, a
    /// symbolic link included, is there — and the directory fsynced. A crash leaves no partial file at `path`.
    public static func create(_ contents: [UInt8], at path: String) throws(TokenError) {
        let temporary = try writeTemporary(contents, beside: path)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            throw TokenError(.storage, "cannot create \(path): \(describe(errno))")
        }
        syncDirectory(of: path)
    }

    /// Replaces `path` with `contents` atomically: written under a random name in the same directory (opened with
    /// `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600), fsynced, renamed over `path`, the directory fsynced. A symbolic link
    /// or anything but a regular file at `path` is refused and left as it is.
    public static func replace(_ contents: [UInt8], at path: String) throws(TokenError) {
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw TokenError(.insecureFile, "\(path) is \(kind(status.st_mode)); linkd writes secrets to a regular file only")
        }
        let temporary = try writeTemporary(contents, beside: path)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw TokenError(.storage, "cannot replace \(path): \(describe(code))")
        }
        syncDirectory(of: path)
    }

    /// The name of a new file beside `path` holding `contents`: a random name (`.NAME.RANDOM.tmp`) opened with
    /// `O_CREAT|O_EXCL|O_NOFOLLOW` and mode 0600, so nothing planted there is written through; written and fsynced.
    static func writeTemporary(_ contents: [UInt8], beside path: String) throws(TokenError) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).\(Base64URL.encode(SecureRandom.bytes(12))).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TokenError(.storage, "cannot create \(temporary): \(describe(errno))") }
        do {
            try write(contents, to: fd, path: temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        return temporary
    }

    /// The contents of the private file at `path`, at most `maxBytes`: opened without following a symbolic link,
    /// and refused when it is not a regular file or its mode gives group or others any access.
    public static func read(_ path: String, maxBytes: Int) throws(TokenError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw TokenError(.insecureFile, "\(path) is a symbolic link; linkd reads secrets from a regular file only") }
            throw TokenError(.storage, "cannot read \(path): \(describe(code))")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw TokenError(.storage, "cannot read \(path): \(describe(errno))") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw TokenError(.insecureFile, "\(path) is \(kind(status.st_mode)); linkd reads secrets from a regular file only")
        }
        try checkMode(status.st_mode, of: path, needed: 0o600)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw TokenError(.storage, "cannot read \(path): \(describe(errno))") }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
            guard bytes.count <= maxBytes else { throw TokenError(.storage, "\(path) is larger than \(maxBytes) bytes") }
        }
    }

    /// Makes the directory at `path` (and its parents) with mode 0700 when it is missing; an existing one must be
    /// a directory (a symbolic link to one is followed) whose mode gives group and others no access.
    public static func prepareDirectory(_ path: String) throws(TokenError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw TokenError(.insecureFile, "\(path) exists and is not a directory") }
            try checkMode(status.st_mode, of: path, needed: 0o700)
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw TokenError(.storage, "cannot create the directory \(path): \(error.localizedDescription)")
        }
    }

    /// Refuses a mode with any group or other bit: "PATH has mode 0644; linkd needs 0600 or stricter (chmod 600 PATH)".
    static func checkMode(_ mode: mode_t, of path: String, needed: mode_t) throws(TokenError) {
        guard mode & 0o077 != 0 else { return }
        throw TokenError(.insecureFile, "\(path) has mode \(octal(mode & 0o7777)); linkd needs \(octal(needed)) or stricter "
            + "(chmod \(String(needed, radix: 8)) \(path))")
    }

    /// `mode` as four octal digits: `0644`.
    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func write(_ contents: [UInt8], to fd: Int32, path: String) throws(TokenError) {
        defer { close(fd) }
        var offset = 0
        while offset < contents.count {
            let count = contents.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw TokenError(.storage, "cannot write \(path): \(describe(errno))") }
            offset += count
        }
        guard fsync(fd) == 0 else { throw TokenError(.storage, "cannot write \(path): \(describe(errno))") }
    }

    /// Makes a rename or a creation in the directory of `path` durable (best effort: not every file system allows it).
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: "a symbolic link"
        case S_IFDIR: "a directory"
        default: "not a regular file"
        }
    }

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
