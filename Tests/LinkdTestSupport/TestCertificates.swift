import Foundation

/// A test certificate authority made with the `openssl` command-line tool, and server certificates it signs.
public struct TestCertificates: Sendable {
    /// Where the files are.
    public let directory: String
    /// The CA's certificate (what a client trusts: `curl --cacert`).
    public var caFile: String { directory + "/ca.pem" }

    /// A new CA (EC P-256) in a fresh directory.
    public init() throws {
        directory = temporaryDataDir() + "-tls"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let openssl = try ExternalTool.path("openssl", install: "apt-get install -y openssl")
        try ExternalTool.run(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=linkd test CA", "-keyout", directory + "/ca.key", "-out", caFile,
        ])
    }

    /// A server certificate for `hosts` (subjectAltName DNS names; the first also its CN), signed by the CA:
    /// the chain file (leaf then CA) and the key file, named `name`.pem and `name`.key.
    @discardableResult
    public func issue(_ name: String, hosts: [String], rsa: Bool = false) throws -> (certificate: String, privateKey: String) {
        let openssl = try ExternalTool.path("openssl", install: "apt-get install -y openssl")
        let key = directory + "/\(name).key", request = directory + "/\(name).csr", leaf = directory + "/\(name).leaf.pem"
        let chain = directory + "/\(name).pem", extensions = directory + "/\(name).ext"
        let algorithm = rsa ? ["-newkey", "rsa:2048"] : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
        try ExternalTool.run(openssl, ["req"] + algorithm + ["-nodes", "-subj", "/CN=\(hosts[0])", "-keyout", key, "-out", request])
        try "subjectAltName=\(hosts.map { "DNS:\($0)" }.joined(separator: ","))\n".write(toFile: extensions, atomically: true, encoding: .utf8)
        try ExternalTool.run(openssl, [
            "x509", "-req", "-in", request, "-CA", caFile, "-CAkey", directory + "/ca.key", "-CAcreateserial", "-days", "1",
            "-extfile", extensions, "-out", leaf,
        ])
        let text = try String(contentsOfFile: leaf, encoding: .utf8) + String(contentsOfFile: caFile, encoding: .utf8)
        try text.write(toFile: chain, atomically: true, encoding: .utf8)
        chmod(key, 0o600)
        return (chain, key)
    }
}
