import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkdTestSupport
import Testing

@testable import LinkdServer

/// Every request constraint `docs/openapi.yaml` states, read from the document and tried on the live server: a
/// request just inside it is taken, one just outside refused with a 4xx. Lengths are tried in characters that take
/// two bytes (`é`), so a cap counted in bytes would show.
@Suite("OpenAPI constraints hold on the server")
struct OpenAPIConstraintTests {
    /// A request to try: a base request the server takes, with one thing changed.
    struct Probe {
        var method: HTTPRequest.Method
        var path: String
        var key: String?
        var body: [String: Any]?
        var query: [String: String] = [:]

        /// The path with the query, percent-encoded.
        var target: String {
            guard !query.isEmpty else { return path }
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            let pairs = query.keys.sorted().map { "\($0)=\(query[$0]!.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            return path + "?" + pairs.joined(separator: "&")
        }
    }

    /// Error codes that refuse what a request names (an app's manifest says no), never its shape.
    static let semanticCodes: Set<String> = ["unknown_route", "not_shareable", "bad_params"]

    /// Sends `probe`; expects it taken (`accepted`: below 400, or refused only for what it names) or refused (a 4xx).
    static func expect(
        _ api: API, _ probe: Probe, accepted: Bool, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let raw = try probe.body.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let reply = try await api.call(probe.method, probe.target, key: probe.key, raw: raw, contentType: raw == nil ? nil : "application/json")
        let label = "\(probe.method.rawValue) \(probe.path) \(what): \(reply.status) \(reply.text.prefix(200))"
        if accepted {
            #expect(reply.status < 400 || semanticCodes.contains(reply.errorCode ?? ""), "\(label)", sourceLocation: sourceLocation)
        } else {
            // A param value is checked with its param's type, in one pass: its refusal is `bad_params`, naming the param.
            let notShape = what.contains("params") ? semanticCodes.subtracting(["bad_params"]) : semanticCodes
            #expect((400..<500).contains(reply.status) && !notShape.contains(reply.errorCode ?? ""), "\(label)", sourceLocation: sourceLocation)
        }
    }

    /// The schema at `node` with its `$ref` followed.
    static func schema(_ document: OpenAPIDocument, _ node: Any?) -> [String: Any] {
        var schema = node as? [String: Any] ?? [:]
        while let ref = schema["$ref"] as? String { schema = document.resolve(ref) }
        return schema
    }

    /// The JSON types a schema allows (`type` as a string or a list).
    static func types(_ schema: [String: Any]) -> Set<String> {
        if let one = schema["type"] as? String { return [one] }
        return Set(schema["type"] as? [String] ?? [])
    }

    /// Values just inside (`true`) and just outside (`false`) each constraint of a value's schema.
    static func cases(_ schema: [String: Any]) -> [(value: Any, inside: Bool, what: String)] {
        var out: [(Any, Bool, String)] = []
        let types = types(schema)
        if let constant = schema["const"] {
            out += [(constant, true, "const"), ("\(constant)-not", false, "not the const")]
        }
        if let options = schema["enum"] as? [Any] {
            for option in options { out.append((option is NSNull ? NSNull() : option, true, "enum \(option)")) }
            out.append(("not-listed", false, "not in the enum"))
        }
        if types.contains("string"), schema["enum"] == nil, schema["const"] == nil {
            if let max = schema["maxLength"] as? Int {
                out += [(String(repeating: "é", count: max), true, "maxLength \(max)"),
                        (String(repeating: "a", count: max + 1), false, "maxLength \(max) + 1")]
            }
            if let min = schema["minLength"] as? Int, min > 0 {
                out += [(String(repeating: "é", count: min), true, "minLength \(min)"),
                        (String(repeating: "a", count: min - 1), false, "minLength \(min) - 1")]
            }
        }
        if types.contains("integer") {
            if let min = schema["minimum"] as? Int { out += [(min, true, "minimum"), (min - 1, false, "minimum - 1")] }
            if let max = schema["maximum"] as? Int { out += [(max, true, "maximum"), (max + 1, false, "maximum + 1")] }
            if let min = schema["minimum"] as? Int { out.append((Double(min) + 0.5, false, "not an integer")) }
        }
        if types.contains("object") {
            let valueSchema = schema["additionalProperties"] as? [String: Any] ?? [:]
            if let max = schema["maxProperties"] as? Int {
                let many = { (count: Int) in Dictionary(uniqueKeysWithValues: (0..<count).map { ("p\($0)", "v") }) }
                out += [(many(max), true, "maxProperties \(max)"), (many(max + 1), false, "maxProperties \(max) + 1")]
            }
            if let max = (schema["propertyNames"] as? [String: Any])?["maxLength"] as? Int {
                out += [([String(repeating: "é", count: max): "v"], true, "name maxLength \(max)"),
                        ([String(repeating: "a", count: max + 1): "v"], false, "name maxLength \(max) + 1")]
            }
            for (value, inside, what) in cases(valueSchema) { out.append((["p": value], inside, "value \(what)")) }
            out.append((["p": 1], false, "a value of the wrong type"))
        }
        if types.contains("null") { out.append((NSNull(), true, "null")) }
        // A value of the wrong JSON type.
        if !types.isEmpty, !types.contains("object") {
            out.append((types.contains("string") ? [1] as Any : "text" as Any, false, "wrong type"))
        }
        return out
    }

    /// Every body case of an object schema, over `base` (a body the server takes): each property's cases, each
    /// required property left out, an unknown property.
    static func bodyCases(_ document: OpenAPIDocument, _ schema: [String: Any], base: [String: Any]) -> [([String: Any], Bool, String)] {
        var out: [([String: Any], Bool, String)] = [(base, true, "the base body")]
        let properties = schema["properties"] as? [String: Any] ?? [:]
        for (name, node) in properties.sorted(by: { $0.key < $1.key }) {
            for (value, inside, what) in cases(Self.schema(document, node)) {
                var body = base
                body[name] = value
                out.append((body, inside, "\(name): \(what)"))
            }
        }
        for name in schema["required"] as? [String] ?? [] {
            var body = base
            body[name] = nil
            out.append((body, false, "without \(name)"))
        }
        if schema["additionalProperties"] as? Bool == false {
            var body = base
            body["unknownField"] = "x"
            out.append((body, false, "an unknown field"))
        }
        return out
    }

    /// The operation object of `method template`.
    static func operation(_ document: OpenAPIDocument, _ method: String, _ template: String) throws -> [String: Any] {
        let item = (document.root["paths"] as? [String: Any])?[template] as? [String: Any]
        return try #require(item?[method] as? [String: Any], "\(method) \(template) not documented")
    }

    /// The JSON body schema of an operation (the `oneOf` branch `branch` when it has several).
    static func bodySchema(_ document: OpenAPIDocument, _ method: String, _ template: String, branch: Int = 0) throws -> [String: Any] {
        let body = try operation(document, method, template)["requestBody"] as? [String: Any]
        let media = ((body?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"]
        let schema = Self.schema(document, media)
        if let branches = schema["oneOf"] as? [Any] { return Self.schema(document, branches[branch]) }
        return schema
    }

    @Test("every body field's length, pattern, enum, range and requiredness, per key kind")
    func bodies() async throws {
        let document = try OpenAPIDocument()
        try await withAPI { api in
            let client = try await api.clientKey(app: "handz")
            let flow = ["flowId": UUID().uuidString.lowercased()]
            // (method, template, path, key, oneOf branch, base body)
            let operations: [(String, String, String, String, Int, [String: Any])] = [
                ("post", "/v1/links", "/v1/links", client, 0, ["params": flow, "owner": "u1", "title": "t"]),
                ("post", "/v1/links", "/v1/links", api.adminKey, 1, ["app": "handz", "params": flow]),
                ("post", "/v1/resolve", "/v1/resolve", "", 0, ["url": "handz://library"]),
                ("post", "/v1/admin/keys/{app}/rotate", "/v1/admin/keys/handz/rotate", api.adminKey, 0, ["suite": "ed25519"]),
                ("post", "/v1/admin/revocations", "/v1/admin/revocations", api.adminKey, 0, ["app": "handz", "owner": "u1"]),
                ("post", "/v1/admin/api-keys", "/v1/admin/api-keys", api.adminKey, 0, ["kind": "client", "app": "handz", "label": "l"]),
                ("post", "/v1/admin/api-keys", "/v1/admin/api-keys", api.adminKey, 1, ["kind": "admin", "label": "l"]),
            ]
            for (method, template, path, key, branch, base) in operations {
                let schema = try Self.bodySchema(document, method, template, branch: branch)
                #expect(!(schema["properties"] as? [String: Any] ?? [:]).isEmpty, "\(template): no schema read")
                for (body, inside, what) in Self.bodyCases(document, schema, base: base) {
                    let probe = Probe(method: .post, path: path, key: key.isEmpty ? nil : key, body: body)
                    try await Self.expect(api, probe, accepted: inside, "\(what) (branch \(branch))")
                }
            }
        }
    }

    @Test("every query parameter's length and range")
    func queries() async throws {
        let document = try OpenAPIDocument()
        try await withAPI { api in
            let hook = try await api.call(.post, "/v1/admin/webhooks", key: api.adminKey, json: [
                "app": "handz", "url": "https://hooks.example.invalid/x", "events": ["link.created"],
            ])
            let hookID = try #require(hook.string("id"))
            // (template, path, key, base query)
            let operations: [(String, String, String?, [String: String])] = [
                ("/v1/resolve", "/v1/resolve", nil, ["url": "handz://library"]),
                ("/v1/resolve/ics", "/v1/resolve/ics", nil, [:]),
                ("/v1/admin/audit", "/v1/admin/audit", api.adminKey, [:]),
                ("/v1/links", "/v1/links", api.adminKey, [:]),
                ("/v1/admin/webhooks/{id}/deliveries", "/v1/admin/webhooks/\(hookID)/deliveries", api.adminKey, [:]),
                ("/v1/apps/{app}/stats", "/v1/apps/handz/stats", api.adminKey, [:]),
                ("/v1/admin/apps/{app}/manifest", "/v1/admin/apps/handz/manifest", api.adminKey, [:]),
            ]
            let calendar = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n"
            for (template, path, key, base) in operations {
                let method = template == "/v1/resolve/ics" ? "post" : "get"
                let parameters = try Self.operation(document, method, template)["parameters"] as? [[String: Any]] ?? []
                var tried = 0
                for parameter in parameters where parameter["in"] as? String == "query" {
                    let name = try #require(parameter["name"] as? String)
                    for (value, inside, what) in Self.cases(Self.schema(document, parameter["schema"])) where !(value is NSNull) && !(value is [Any]) {
                        var query = base
                        query[name] = "\(value)"
                        let target = Probe(method: .get, path: path, query: query).target
                        let reply = method == "post"
                            ? try await api.call(.post, target, raw: calendar, contentType: "text/calendar")
                            : try await api.call(.get, target, key: key)
                        let label = "\(template) \(name) \(what): \(reply.status) \(reply.text.prefix(200))"
                        #expect(inside ? reply.status < 400 : (400..<500).contains(reply.status), "\(label)")
                        tried += 1
                    }
                    if parameter["required"] as? Bool == true {
                        var query = base
                        query[name] = nil
                        #expect(try await api.call(.get, Probe(method: .get, path: path, query: query).target, key: key).status == 400)
                    }
                }
                #expect(tried > 0, "\(template): no constraint read")
            }
        }
    }

    @Test("every body cap: x-max-body-bytes is taken, one byte more is 413")
    func bodyCaps() async throws {
        let document = try OpenAPIDocument()
        try await withAPI { api in
            let operations: [(String, String, String?, String, String)] = [
                ("/v1/links", "/v1/links", try await api.clientKey(app: "handz"), "application/json", #"{"owner":"u1""#),
                ("/v1/resolve", "/v1/resolve", nil, "application/json", #"{"url":"handz://library""#),
                ("/v1/resolve/ics", "/v1/resolve/ics", nil, "text/calendar", "BEGIN:VCALENDAR\r\n"),
                ("/v1/admin/keys/{app}/rotate", "/v1/admin/keys/handz/rotate", api.adminKey, "application/json", "{"),
                ("/v1/admin/revocations", "/v1/admin/revocations", api.adminKey, "application/json", #"{"app":"handz","owner":"u1""#),
                ("/v1/admin/api-keys", "/v1/admin/api-keys", api.adminKey, "application/json", #"{"kind":"admin","label":"l""#),
                ("/v1/claims/{code}", "/v1/claims/\(String(repeating: "C", count: 22))", nil, "application/json", #"{"state":"free""#),
                ("/v1/admin/apps/{app}/manifest/rollback", "/v1/admin/apps/notes/manifest/rollback", api.adminKey, "application/json",
                 #"{"version":1"#),
            ]
            for (template, path, key, mediaType, start) in operations {
                let body = try Self.operation(document, "post", template)["requestBody"] as? [String: Any]
                let cap = try #require(body?["x-max-body-bytes"] as? Int, "\(template): no x-max-body-bytes")
                for (size, inside) in [(cap, true), (cap + 1, false)] {
                    let text = mediaType == "text/calendar" ? Self.calendar(bytes: size) : Self.paddedJSON(start, bytes: size)
                    #expect(text.utf8.count == size)
                    let reply = try await api.call(.post, path, key: key, raw: text, contentType: mediaType)
                    #expect(inside ? reply.status != 413 && reply.status < 500 : reply.status == 413, "\(template) \(size) B: \(reply.status) \(reply.text.prefix(200))")
                }
            }
        }
    }

    /// A JSON object starting `start` (its members, without the closing brace), padded with spaces to `bytes`.
    static func paddedJSON(_ start: String, bytes: Int) -> String {
        start + String(repeating: " ", count: bytes - start.utf8.count - 1) + "}"
    }

    /// A calendar of exactly `bytes` bytes: long X- properties (few, so no count cap is reached).
    static func calendar(bytes: Int) -> String {
        let head = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n", tail = "END:VCALENDAR\r\n"
        var text = head
        var left = bytes - head.utf8.count - tail.utf8.count
        while left > 0 {
            let line = min(left, 50_000)
            // "X-P:" + filler + CRLF; the last line takes what is left (at least 7 bytes: "X-P:a\r\n").
            let filler = max(1, line - 6)
            text += "X-P:" + String(repeating: "a", count: filler) + "\r\n"
            left -= filler + 6
        }
        return text + tail
    }

    @Test("every path parameter's pattern")
    func pathPatterns() async throws {
        let document = try OpenAPIDocument()
        try await withAPI { api in
            let client = try await api.clientKey(app: "handz")
            let link = try #require(try await api.createHandzLink(key: client)["id"] as? String)
            let made = try await api.call(.post, "/v1/admin/api-keys", key: api.adminKey, json: ["kind": "admin", "label": "spare"])
            let keyID = try #require(made.string("id"))
            // (template, key, a value the pattern allows that names something, values it does not allow)
            let cases: [(String, String, String, [String])] = [
                ("/v1/links/{id}", client, link, [link.uppercased(), String(link.dropLast()), link + "0"]),
                ("/v1/admin/api-keys/{id}", api.adminKey, keyID, [keyID.uppercased().replacingOccurrences(of: "KEY_", with: "key_"), keyID + "0", "x" + keyID]),
            ]
            for (template, key, inside, outside) in cases {
                let item = try #require((document.root["paths"] as? [String: Any])?[template] as? [String: Any])
                let parameter = try #require((item["parameters"] as? [[String: Any]])?.first)
                let pattern = try #require(Self.schema(document, parameter["schema"])["pattern"] as? String)
                let method: HTTPRequest.Method = item["get"] != nil ? .get : .delete
                #expect(inside.range(of: pattern, options: .regularExpression) != nil)
                let path = { (value: String) in template.replacingOccurrences(of: "{id}", with: value) }
                #expect(try await api.call(method, path(inside), key: key).status == 200, "\(template) \(inside)")
                for value in outside {
                    #expect(value.range(of: pattern, options: .regularExpression) == nil, "\(value) matches \(pattern)")
                    #expect(try await api.call(method, path(value), key: key).status == 404, "\(template) \(value)")
                }
            }
        }
    }
}
