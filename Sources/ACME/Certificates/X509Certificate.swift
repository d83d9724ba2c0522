internal import COpenSSL
import Foundation

/// One X.509 certificate (an OpenSSL `X509`), owned and freed here: what `IssuedCertificate` reads from a leaf.
final class X509Certificate {
    let x509: OpaquePointer

    private init(owning x509: OpaquePointer) { self.x509 = x509 }

    deinit { X509_free(x509) }

    /// Every certificate in `pem`, in order; `certificate` when there is none or one cannot be read.
    static func chain(pem: String) throws -> [X509Certificate] {
        let bytes = Array(pem.utf8)
        let count = pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1
        guard count > 0 else { throw ACMEError(.certificate, "the chain holds no PEM certificate") }
        return try OpenSSLCalls.withMemoryBIO(bytes) { bio in
            var out: [X509Certificate] = []
            for index in 0..<count {
                guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else {
                    throw OpenSSLCalls.error("reading certificate \(index + 1) of the chain", code: .certificate)
                }
                out.append(X509Certificate(owning: x509))
            }
            return out
        }
    }

    /// The start of the validity period.
    func notBefore() throws -> Date { try date(X509_get0_notBefore(x509), "notBefore") }
    /// The end of the validity period.
    func notAfter() throws -> Date { try date(X509_get0_notAfter(x509), "notAfter") }

    private func date(_ time: UnsafePointer<ASN1_TIME>?, _ field: String) throws -> Date {
        var fields = tm()
        guard let time, ASN1_TIME_to_tm(time, &fields) == 1 else {
            throw OpenSSLCalls.error("reading the leaf certificate's \(field)", code: .certificate)
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&fields)))
    }

    /// The subjectAltName DNS names, in the certificate's order.
    func dnsNames() -> [String] {
        guard let names = X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else { return [] }
        let stack = OpaquePointer(names)
        defer { GENERAL_NAMES_free(stack) }
        var out: [String] = []
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let name = OPENSSL_sk_value(stack, index) else { continue }
            var type: Int32 = 0
            let value = GENERAL_NAME_get0_value(name.assumingMemoryBound(to: GENERAL_NAME.self), &type)
            guard let value, type == GEN_DNS else { continue }
            let text = value.assumingMemoryBound(to: ASN1_STRING.self)
            guard let data = ASN1_STRING_get0_data(text) else { continue }
            let length = Int(ASN1_STRING_length(text))
            out.append(String(decoding: UnsafeBufferPointer(start: data, count: length), as: UTF8.self))
        }
        return out
    }

    /// True when the PEM private key `pem` (any type OpenSSL reads: RSA, EC, Ed25519) is this certificate's.
    func matches(privateKeyPEM pem: String) -> Bool {
        let key = try? OpenSSLCalls.withMemoryBIO(Array(pem.utf8)) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil) }
        guard let key = key ?? nil else {
            ERR_clear_error()
            return false
        }
        defer { EVP_PKEY_free(key) }
        let ok = X509_check_private_key(x509, key) == 1
        ERR_clear_error()
        return ok
    }

    /// True when `key` is the private key of this certificate's public key.
    func matches(_ key: P256Key) -> Bool {
        let ok = X509_check_private_key(x509, key.pkey) == 1
        ERR_clear_error()
        return ok
    }
}
