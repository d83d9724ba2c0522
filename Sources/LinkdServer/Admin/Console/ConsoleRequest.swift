import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import NIOCore

/// What the console reads of a request: its cookies, its form body, whether it came from the console's own pages.
enum ConsoleRequest {
    /// The largest form body the console reads (its forms hold a few short fields).
    static let maxFormBytes = 8 * 1024
    /// The most fields a form may have.
    static let maxFormFields = 16
    /// The longest `Cookie` header read.
    static let maxCookieBytes = 4 * 1024

    /// The value of cookie `name`, when the request has it (first of several).
    static func cookie(_ name: String, in request: Request) -> String? {
        let header = request.headers[values: .cookie].joined(separator: "; ")
        guard header.utf8.count <= maxCookieBytes else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The fields of an `application/x-www-form-urlencoded` body (the first of repeated names); 415 for another
    /// type, 413 over `maxFormBytes`, 400 for more than `maxFormFields` fields or percent-encoding that is not UTF-8.
    static func form(_ request: Request) async throws -> [String: String] {
        let body = try await JSONBody.collect(request, maxBytes: maxFormBytes, contentType: "application/x-www-form-urlencoded")
        let text = String(buffer: body)
        let pairs = text.split(separator: "&", omittingEmptySubsequences: true)
        guard pairs.count <= maxFormFields else { throw APIError(.badRequest, .badRequest, "the form has too many fields") }
        var fields: [String: String] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw APIError(.badRequest, .badRequest, "the form is not valid URL-encoded UTF-8")
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    private static func decode(_ part: Substring) -> String? {
        String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// Whether a state-changing request comes from the console's own pages, by its `Origin` (the same host and
    /// port as `Host`; `null` or another origin: no) or, without one, `Sec-Fetch-Site` (`same-origin`, or absent
    /// for a client that sends neither — then the CSRF token alone decides).
    static func isSameOrigin(_ request: Request) -> Bool {
        guard let host = request.head.authority else { return false }
        if let origin = request.headers[.origin] {
            // Exactly `scheme://host[:port]` of this request's host — no user name, no path — over https, or over
            // plain http on a loopback host (the operator's own machine; everywhere else the console is behind TLS).
            let schemes = isLoopbackHost(request) ? ["https://", "http://"] : ["https://"]
            return schemes.contains { origin.lowercased() == $0 + host.lowercased() }
        }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] { return site == "same-origin" }
        return true
    }

    /// Whether the request names a loopback host (`localhost`, `127.x.x.x`, `[::1]`): then the session cookie goes
    /// without `Secure`, which a plain-HTTP browser on the operator's own machine would otherwise drop. Anywhere
    /// else the console is reached over HTTPS (a TLS-terminating proxy) and the cookie is `Secure`.
    static func isLoopbackHost(_ request: Request) -> Bool {
        guard let authority = (request.head.authority)?.lowercased() else { return false }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.dropFirst().prefix { $0 != "]" }
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
            && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }
}
