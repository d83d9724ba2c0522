internal import COpenSSL
import TokenSigning

/// A certificate signing request (PKCS #10) for a fresh P-256 certificate key: the hosts as subjectAltName DNS
/// names, the first also as the subject's CN (when it fits CN's 64 characters), signed with SHA-256.
struct CertificateRequest {
    /// The new certificate's private key.
    let key: P256Key
    /// The CSR, DER.
    let der: [UInt8]

    /// The CSR's DER as base64url, as `finalize` takes it (RFC 8555 §7.4).
    var base64url: String { Base64URL.encode(der) }

    /// A fresh key and its CSR for `hosts` (already normalized by `HostNames`).
    init(hosts: [String]) throws {
        guard let first = hosts.first else { throw ACMEError(.invalidArgument, "a CSR needs at least one host name") }
        let key = try P256Key.generate()
        guard let request = X509_REQ_new() else { throw OpenSSLCalls.error("X509_REQ_new") }
        defer { X509_REQ_free(request) }
        guard X509_REQ_set_version(request, 0) == 1 else { throw OpenSSLCalls.error("X509_REQ_set_version") }
        if first.utf8.count <= 64 {
            guard let subject = X509_REQ_get_subject_name(request),
                X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, Array(first.utf8), Int32(first.utf8.count), -1, 0) == 1
            else { throw OpenSSLCalls.error("X509_NAME_add_entry_by_txt(CN)") }
        }
        guard X509_REQ_set_pubkey(request, key.pkey) == 1 else { throw OpenSSLCalls.error("X509_REQ_set_pubkey") }
        try Self.addSubjectAltNames(hosts, to: request)
        guard X509_REQ_sign(request, key.pkey, EVP_sha256()) > 0 else { throw OpenSSLCalls.error("X509_REQ_sign") }
        let length = i2d_X509_REQ(request, nil)
        guard length > 0 else { throw OpenSSLCalls.error("i2d_X509_REQ") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_X509_REQ(request, &cursor)
        }
        guard written == length else { throw OpenSSLCalls.error("i2d_X509_REQ") }
        self.key = key
        self.der = der
    }

    /// Adds the extension request `subjectAltName = DNS:h1, DNS:h2, …`. The names hold only `a-z0-9.-` (checked by
    /// `HostNames`), so none can inject another entry into OpenSSL's configuration syntax.
    private static func addSubjectAltNames(_ hosts: [String], to request: OpaquePointer) throws {
        guard hosts.allSatisfy(HostNames.isDNSName) else { throw ACMEError(.invalidArgument, "a host name is not a DNS name") }
        let value = hosts.map { "DNS:" + $0 }.joined(separator: ",")
        guard let extensionValue = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, value) else {
            throw OpenSSLCalls.error("X509V3_EXT_conf_nid(subjectAltName)")
        }
        defer { X509_EXTENSION_free(extensionValue) }
        guard let stack = OPENSSL_sk_new_null() else { throw OpenSSLCalls.error("OPENSSL_sk_new_null") }
        defer { OPENSSL_sk_free(stack) }  // the extension is freed above, not through the stack
        guard OPENSSL_sk_push(stack, UnsafeRawPointer(extensionValue)) > 0 else { throw OpenSSLCalls.error("OPENSSL_sk_push") }
        guard X509_REQ_add_extensions(request, stack) == 1 else { throw OpenSSLCalls.error("X509_REQ_add_extensions") }
    }
}
