import Foundation
import Testing
@testable import TokenSigning

/// Files of secrets: created and replaced through a random temporary name (`O_CREAT|O_EXCL|O_NOFOLLOW`, 0600),
/// never written through a symbolic link; read only when private; directories refused when others may enter them.
@Suite("Secret files")
struct SecretFileTests {
    /// A fresh private directory.
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "linkd-secret-\(UUID().uuidString)"
        try SecretFile.prepareDirectory(path)
        return path
    }

    static func mode(_ path: String) -> Int? { (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int }
    static func text(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
    /// The names in `directory` other than `expected` (a temporary file left behind would show here).
    static func strays(in directory: String, expected: Set<String>) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { !expected.contains($0) }
    }

    @Test("create: mode 0600, nothing left beside it; an existing file or a symbolic link there is refused and untouched")
    func create() throws {
        let dir = try Self.directory()
        try SecretFile.create(Array("one\n".utf8), at: dir + "/key")
        #expect(Self.text(dir + "/key") == "one\n" && Self.mode(dir + "/key") == 0o600)
        #expect(throws: TokenError.self) { try SecretFile.create(Array("two\n".utf8), at: dir + "/key") }
        #expect(Self.text(dir + "/key") == "one\n")
        try "target\n".write(toFile: dir + "/target", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/target")
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling", withDestinationPath: dir + "/nowhere")
        #expect(throws: TokenError.self) { try SecretFile.create(Array("x".utf8), at: dir + "/link") }
        #expect(throws: TokenError.self) { try SecretFile.create(Array("x".utf8), at: dir + "/dangling") }
        #expect(Self.text(dir + "/target") == "target\n" && !FileManager.default.fileExists(atPath: dir + "/nowhere"))
        #expect(try Self.strays(in: dir, expected: ["key", "target", "link", "dangling"]) == [])
    }

    @Test("replace: atomic, 0600, through a random temporary name; a symbolic link at the path or the old temporary name is not followed")
    func replace() throws {
        let dir = try Self.directory()
        let path = dir + "/keys.json"
        try "loose\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        try SecretFile.replace(Array("one\n".utf8), at: path)
        #expect(Self.text(path) == "one\n" && Self.mode(path) == 0o600)
        // The name the writer used before (path.tmp-PID) planted as a link to a file of the attacker's choosing.
        try "target\n".write(toFile: dir + "/target", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: path + ".tmp-\(getpid())", withDestinationPath: dir + "/target")
        try SecretFile.replace(Array("two\n".utf8), at: path)
        #expect(Self.text(path) == "two\n" && Self.text(dir + "/target") == "target\n")
        #expect(try Self.strays(in: dir, expected: ["keys.json", "target", "keys.json.tmp-\(getpid())"]) == [])
        // A symbolic link at the path itself: refused, the link and its target left as they are.
        try FileManager.default.createSymbolicLink(atPath: dir + "/linked.json", withDestinationPath: dir + "/target")
        let error = #expect(throws: TokenError.self) { try SecretFile.replace(Array("x".utf8), at: dir + "/linked.json") }
        #expect(error?.code == .insecureFile && error?.message.contains("symbolic link") == true)
        #expect(Self.text(dir + "/target") == "target\n")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/linked.json")) == dir + "/target")
    }

    @Test("read: a regular file of mode 0600 or stricter only, opened without following a link")
    func read() throws {
        let dir = try Self.directory()
        let path = dir + "/master.key"
        try SecretFile.create(Array("secret".utf8), at: path)
        #expect(try SecretFile.read(path, maxBytes: 100) == Array("secret".utf8))
        chmod(path, 0o400)
        #expect(try SecretFile.read(path, maxBytes: 100) == Array("secret".utf8))
        chmod(path, 0o644)
        let loose = #expect(throws: TokenError.self) { try SecretFile.read(path, maxBytes: 100) }
        #expect(loose?.code == .insecureFile)
        #expect(loose?.message == "\(path) has mode 0644; linkd needs 0600 or stricter (chmod 600 \(path))")
        chmod(path, 0o600)
        #expect(throws: TokenError.self) { try SecretFile.read(path, maxBytes: 3) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: path)
        let link = #expect(throws: TokenError.self) { try SecretFile.read(dir + "/link", maxBytes: 100) }
        #expect(link?.code == .insecureFile && link?.message.contains("symbolic link") == true)
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let directory = #expect(throws: TokenError.self) { try SecretFile.read(dir + "/sub", maxBytes: 100) }
        #expect(directory?.code == .insecureFile && directory?.message.contains("is a directory") == true)
    }

    @Test("directories: made 0700 when missing; an existing one open to group or others is refused, naming its mode")
    func directories() throws {
        let made = NSTemporaryDirectory() + "linkd-secret-\(UUID().uuidString)/nested"
        try SecretFile.prepareDirectory(made)
        #expect(Self.mode(made) == 0o700)
        chmod(made, 0o755)
        let error = #expect(throws: TokenError.self) { try SecretFile.prepareDirectory(made) }
        #expect(error?.message == "\(made) has mode 0755; linkd needs 0700 or stricter (chmod 700 \(made))")
        chmod(made, 0o750)
        #expect(throws: TokenError.self) { try SecretFile.prepareDirectory(made) }
        chmod(made, 0o700)
        try SecretFile.prepareDirectory(made)
        try "x".write(toFile: made + "/file", atomically: false, encoding: .utf8)
        #expect(throws: TokenError.self) { try SecretFile.prepareDirectory(made + "/file") }
    }

    @Test("the master key: a loose mode, a symbolic link or a loose directory is refused, naming the path")
    func masterKey() throws {
        let dir = try Self.directory()
        let path = dir + "/master.key"
        let key = try MasterKey.loadOrCreate(at: path, environment: [:])
        #expect(Self.mode(path) == 0o600)
        chmod(path, 0o644)
        let loose = #expect(throws: TokenError.self) { try MasterKey.loadOrCreate(at: path, environment: [:]) }
        #expect(loose?.message == "\(path) has mode 0644; linkd needs 0600 or stricter (chmod 600 \(path))")
        chmod(path, 0o600)
        #expect(try MasterKey.loadOrCreate(at: path, environment: [:]).bytes == key.bytes)
        try FileManager.default.moveItem(atPath: path, toPath: dir + "/real.key")
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: dir + "/real.key")
        #expect(throws: TokenError.self) { try MasterKey.loadOrCreate(at: path, environment: [:]) }
        chmod(dir, 0o711)
        let directory = #expect(throws: TokenError.self) { try MasterKey.loadOrCreate(at: dir + "/other.key", environment: [:]) }
        #expect(directory?.message.contains("has mode 0711") == true)
        chmod(dir, 0o700)
    }
}
