import HTTPTypes
import Hummingbird
import HummingbirdCore
import LinkdHTTP
import NIOCore

/// The plain listener's responder. With `tls.redirectHTTP` on (`tlsPort` set) every request is answered `308` to
/// the same host, path and query over HTTPS (the TLS port added unless it is 443), except ACME's HTTP-01 challenges
/// and the health and metrics paths, which `base` answers; a request with no usable `Host` is `400`. Without it,
/// `base` answers everything.
struct HTTPSRedirectResponder<Base: HTTPResponder>: HTTPResponder where Base.Context == LinkdRequestContext {
    typealias Context = LinkdRequestContext
    let base: Base
    /// The TLS listener's port (443 is left out of the URL); nil: no redirects.
    let tlsPort: BoundPort?

    /// Paths the plain listener keeps answering itself.
    static func isExempt(_ path: String) -> Bool {
        path.hasPrefix("/.well-known/acme-challenge/") || ["/healthz", "/readyz", "/metrics"].contains(path)
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let tlsPort, !Self.isExempt(request.uri.path) else { return try await base.respond(to: request, context: context) }
        guard let host = Self.hostName(request.head.authority) else {
            return Response(status: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "a Host header is needed to redirect to https\n")))
        }
        let port = tlsPort.port == 443 ? "" : ":\(tlsPort.port)"
        let location = "https://\(host)\(port)\(request.uri.path)\(request.uri.query.map { "?" + $0 } ?? "")"
        return Response(status: .permanentRedirect, headers: [.location: location, .contentLength: "0"])
    }

    /// The host of a `Host` value without its port, when it is a DNS name or an IPv4 address (letters, digits,
    /// `-` and `.` only, at most 253 bytes): nothing else goes into the `Location` answered.
    static func hostName(_ value: String?) -> String? {
        guard let value else { return nil }
        let host = value.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        guard !host.isEmpty, host.utf8.count <= 253,
              host.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "-" || $0 == "." })
        else { return nil }
        return host.lowercased()
    }
}
