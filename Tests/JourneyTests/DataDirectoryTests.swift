import Foundation
import LinkdTestSupport
import Testing

/// What `linkd serve` and the key verbs accept as a data directory and a master key, and where the first admin key
/// goes: a private file, never the process's output.
@Suite("Data directory, key files and the first admin key", .serialized)
struct DataDirectoryTests {
    /// The variables a test must not inherit from the caller's shell.
    static let unset = ["LINKD_MASTER_KEY", "LINKD_DATABASE_URL", "LINKD_CONFIG", "LINKD_DATA_DIR", "LINKD_PORT", "LINKD_HOST", "LINKD_MANIFESTS"]

    /// `linkd serve --port 0 --data-dir DIR` in the repository root, expected to stop at start.
    static func refusedStart(_ dir: String) throws -> LinkdProcess.Output {
        try LinkdProcess.run(["serve", "--port", "0", "--data-dir", dir], workingDirectory: LinkdProcess.repositoryRoot, unsetting: unset)
    }

    /// A directory of `mode` (made under the umask, then set).
    static func directory(mode: mode_t) throws -> String {
        let dir = temporaryDataDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, mode)
        return dir
    }

    static func mode(_ path: String) -> Int? { (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int }

    @Test("first start writes the admin key to <dataDir>/initial-admin-key (0600) and prints only the path, at every log level")
    func initialAdminKey() async throws {
        let dir = temporaryDataDir()
        let first = try LinkdDaemon(dataDir: dir, environment: ["LINKD_LOG_LEVEL": "trace"])
        defer { first.stop() }
        let file = try #require(first.initialAdminKeyFile)
        #expect(file == dir + "/initial-admin-key")
        #expect(Self.mode(file) == 0o600)
        let key = try #require(first.initialAdminKey)
        #expect(key.hasPrefix("lkd_") && key.count > 20)
        #expect(try await TestHTTP.send("GET", first.baseURL + "/v1/admin/keys", bearer: key).status == 200)
        #expect(first.output.contains(file) && first.output.contains("secret store") && first.output.contains("delete the file"))
        #expect(!first.output.contains(key), "the key on standard output")
        #expect(!first.errorOutput.contains(key), "the key on standard error (the logs)")
        #expect(first.errorOutput.contains("apikey.create") || first.errorOutput.contains("notice"), "the logs were captured")
        first.stop()
        // A later start makes no key and prints nothing about one; the file stays until the operator deletes it.
        let second = try LinkdDaemon(dataDir: dir)
        defer { second.stop() }
        #expect(second.initialAdminKeyFile == nil && !second.output.contains("admin API key"))
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test("a data directory open to group or others stops serve and the key verbs, naming its mode")
    func looseDataDirectory() throws {
        for mode: mode_t in [0o755, 0o750, 0o701] {
            let dir = try Self.directory(mode: mode)
            let octal = "0" + String(mode, radix: 8)
            let served = try Self.refusedStart(dir)
            #expect(served.status == 1)
            #expect(served.stderr.contains("\(dir) has mode \(octal); linkd needs 0700 or stricter (chmod 700 \(dir))"), "\(served.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/linkd.sqlite"), "nothing is written into it")
            let listed = try LinkdProcess.run(["token", "keyring", "list", "--data-dir", dir], unsetting: Self.unset)
            #expect(listed.status != 0 && listed.stderr.contains("has mode \(octal)"), "\(listed.stderr)")
        }
        let tight = try Self.directory(mode: 0o700)
        let daemon = try LinkdDaemon(dataDir: tight)
        daemon.stop()
    }

    @Test("a master.key that is not 0600 or stricter, a symbolic link or not a regular file stops serve, naming it")
    func looseMasterKey() throws {
        let masterKey = String(repeating: "A", count: 43) + "\n"
        // Group-readable, world-readable.
        for mode: mode_t in [0o640, 0o644] {
            let dir = try Self.directory(mode: 0o700)
            let path = dir + "/master.key"
            try masterKey.write(toFile: path, atomically: false, encoding: .utf8)
            chmod(path, mode)
            let served = try Self.refusedStart(dir)
            #expect(served.status == 1)
            #expect(served.stderr.contains("\(path) has mode 0\(String(mode, radix: 8)); linkd needs 0600 or stricter (chmod 600 \(path))"),
                    "\(served.stderr)")
        }
        // A symbolic link to a private key file.
        let linked = try Self.directory(mode: 0o700)
        try masterKey.write(toFile: linked + "/real.key", atomically: false, encoding: .utf8)
        chmod(linked + "/real.key", 0o600)
        try FileManager.default.createSymbolicLink(atPath: linked + "/master.key", withDestinationPath: linked + "/real.key")
        let symlink = try Self.refusedStart(linked)
        #expect(symlink.status == 1 && symlink.stderr.contains("\(linked)/master.key is a symbolic link"), "\(symlink.stderr)")
        // A directory.
        let directory = try Self.directory(mode: 0o700)
        try FileManager.default.createDirectory(atPath: directory + "/master.key", withIntermediateDirectories: false)
        let notFile = try Self.refusedStart(directory)
        #expect(notFile.status == 1 && notFile.stderr.contains("\(directory)/master.key is a directory"), "\(notFile.stderr)")
        // 0400 is stricter: accepted.
        let readOnly = try Self.directory(mode: 0o700)
        try masterKey.write(toFile: readOnly + "/master.key", atomically: false, encoding: .utf8)
        chmod(readOnly + "/master.key", 0o400)
        let daemon = try LinkdDaemon(dataDir: readOnly)
        daemon.stop()
    }
}
