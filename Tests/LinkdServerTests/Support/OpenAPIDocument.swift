import Foundation
import LinkdTestSupport
import Yams

/// A JSON value as the server sent it (kept apart from `JSONSerialization` so that `true` and `1` stay different).
enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let value = try? container.decode(Bool.self) { self = .bool(value); return }
        if let value = try? container.decode(Double.self) { self = .number(value); return }
        if let value = try? container.decode(String.self) { self = .string(value); return }
        if let value = try? container.decode([JSONValue].self) { self = .array(value); return }
        self = .object(try container.decode([String: JSONValue].self))
    }
}

/// `docs/openapi.yaml`, with just enough of JSON Schema to check the server's answers against it:
/// `$ref`, `allOf`, `type`, `required`, `properties`, `additionalProperties`, `items`, `enum`, `const`, `pattern`,
/// `minimum`/`maximum`, `minLength`/`maxLength`.
struct OpenAPIDocument: @unchecked Sendable {  // read-only after init
    let root: [String: Any]

    /// Loads the repository's document.
    init() throws {
        let url = LinkdProcess.repositoryRoot.appendingPathComponent("docs/openapi.yaml")
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let root = Self.normalize(try Yams.load(yaml: text)) as? [String: Any] else {
            throw HarnessError("docs/openapi.yaml is not a mapping")
        }
        self.root = root
    }

    /// Every documented operation as "METHOD /path/template".
    var operations: Set<String> {
        let paths = root["paths"] as? [String: Any] ?? [:]
        var found = Set<String>()
        for (template, item) in paths {
            for method in (item as? [String: Any] ?? [:]).keys where Self.methods.contains(method) {
                found.insert("\(method.uppercased()) \(template)")
            }
        }
        return found
    }

    /// The `Allow` value a 405 for `template` must carry: its documented methods, `HEAD` with `GET`, in the server's
    /// order; nil for a path not documented.
    func allow(_ template: String) -> String? {
        guard let item = (root["paths"] as? [String: Any])?[template] as? [String: Any] else { return nil }
        let methods = Set(item.keys.filter(Self.methods.contains).map { $0.uppercased() })
        let withHead = methods.contains("GET") ? methods.union(["HEAD"]) : methods
        return ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].filter(withHead.contains).joined(separator: ", ")
    }

    /// Every documented path template.
    var paths: [String] { ((root["paths"] as? [String: Any]) ?? [:]).keys.sorted() }

    /// Every documented response status, by operation ("METHOD /path/template").
    var documentedStatuses: [String: Set<Int>] {
        let paths = root["paths"] as? [String: Any] ?? [:]
        var found: [String: Set<Int>] = [:]
        for (template, item) in paths {
            for (method, operation) in item as? [String: Any] ?? [:] where Self.methods.contains(method) {
                let responses = (operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                found["\(method.uppercased()) \(template)"] = Set(responses.keys.compactMap { Int($0) })
            }
        }
        return found
    }

    /// Problems of one exchange with the server: an undocumented operation or status, a content type the document
    /// does not list for that status, a JSON body that does not match the documented schema.
    func problems(method: String, template: String, status: Int, contentType: String?, body: String) -> [String] {
        let name = "\(method) \(template) → \(status)"
        let item = (root["paths"] as? [String: Any])?[template] as? [String: Any] ?? [:]
        // A method the path does not list is answered 405, documented with each of the path's operations.
        let listed = item[method.lowercased()] ?? (status == 405 ? item.first { Self.methods.contains($0.key) }?.value : nil)
        guard let operation = listed as? [String: Any] else { return ["\(method) \(template) is not documented"] }
        guard var response = (operation["responses"] as? [String: Any])?[String(status)] as? [String: Any] else {
            return ["\(name): status not documented"]
        }
        if let ref = response["$ref"] as? String { response = resolve(ref) }
        guard let content = response["content"] as? [String: Any] else { return [] }
        let mediaType = contentType.map { String($0.split(separator: ";")[0]).trimmingCharacters(in: .whitespaces) } ?? "(none)"
        guard let media = content[mediaType] as? [String: Any] else {
            return ["\(name): content type \(mediaType) not documented (documented: \(content.keys.sorted()))"]
        }
        guard mediaType == "application/json", let schema = media["schema"] as? [String: Any] else { return [] }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8)) else {
            return ["\(name): body is not JSON: \(body.prefix(200))"]
        }
        return validate(value, schema, at: "\(name) $").map { $0 }
    }

    /// Problems of `value` against `schema`, each naming where.
    func validate(_ value: JSONValue, _ schema: [String: Any], at path: String) -> [String] {
        if let ref = schema["$ref"] as? String { return validate(value, resolve(ref), at: path) }
        var problems: [String] = []
        for part in schema["allOf"] as? [[String: Any]] ?? [] { problems += validate(value, part, at: path) }
        if let options = schema["enum"] as? [Any], !options.contains(where: { Self.equals(value, $0) }) {
            problems.append("\(path): \(value) is not one of \(options)")
        }
        if let constant = schema["const"], !Self.equals(value, constant) { problems.append("\(path): \(value) is not \(constant)") }
        let type = schema["type"] as? String
        switch value {
        case .object(let fields):
            if let type, type != "object" { return problems + ["\(path): an object, not \(type)"] }
            for key in schema["required"] as? [String] ?? [] where fields[key] == nil { problems.append("\(path): missing \(key)") }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, field) in fields {
                if let property = properties[key] as? [String: Any] {
                    problems += validate(field, property, at: "\(path).\(key)")
                } else if let extra = schema["additionalProperties"] as? [String: Any] {
                    problems += validate(field, extra, at: "\(path).\(key)")
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(path): undocumented field \(key)")
                }
            }
        case .array(let items):
            if let type, type != "array" { return problems + ["\(path): an array, not \(type)"] }
            if let itemSchema = schema["items"] as? [String: Any] {
                for (index, item) in items.enumerated() { problems += validate(item, itemSchema, at: "\(path)[\(index)]") }
            }
        case .string(let text):
            if let type, type != "string" { return problems + ["\(path): a string, not \(type)"] }
            if let pattern = schema["pattern"] as? String, text.range(of: pattern, options: .regularExpression) == nil {
                problems.append("\(path): \(text.prefix(80)) does not match \(pattern)")
            }
            if let max = schema["maxLength"] as? Int, text.count > max { problems.append("\(path): longer than \(max)") }
            if let min = schema["minLength"] as? Int, text.count < min { problems.append("\(path): shorter than \(min)") }
            if schema["format"] as? String == "date-time", (try? Date.ISO8601FormatStyle().parse(text)) == nil {
                problems.append("\(path): \(text) is not an RFC 3339 date-time")
            }
        case .number(let number):
            if type == "integer", number.rounded() != number { problems.append("\(path): \(number) is not an integer") }
            if let type, type != "integer", type != "number" { problems.append("\(path): a number, not \(type)") }
            if let min = schema["minimum"] as? Int, number < Double(min) { problems.append("\(path): below \(min)") }
            if let max = schema["maximum"] as? Int, number > Double(max) { problems.append("\(path): above \(max)") }
        case .bool:
            if let type, type != "boolean" { problems.append("\(path): a boolean, not \(type)") }
        case .null:
            // Only where the schema allows it (`type: "null"` or a list with "null": the export's record); the API's
            // JSON answers omit absent fields.
            let types = schema["type"] as? [Any] ?? (type.map { [$0] } ?? [])
            if !types.contains(where: { $0 as? String == "null" }) {
                problems.append("\(path): null (the server omits absent fields)")
            }
        }
        return problems
    }

    /// The object a local `$ref` ("#/components/…") points at.
    func resolve(_ ref: String) -> [String: Any] {
        var node: Any = root
        for part in ref.dropFirst(2).split(separator: "/") {
            node = (node as? [String: Any])?[String(part)] ?? [:]
        }
        return node as? [String: Any] ?? [:]
    }

    private static let methods: Set<String> = ["get", "post", "put", "patch", "delete"]

    private static func equals(_ value: JSONValue, _ other: Any) -> Bool {
        switch value {
        case .string(let text): return (other as? String) == text
        case .bool(let flag): return (other as? Bool) == flag
        case .number(let number): return (other as? Int).map(Double.init) == number || (other as? Double) == number
        default: return false
        }
    }

    /// Yams gives `[AnyHashable: Any]` mappings; the checks want `[String: Any]`.
    private static func normalize(_ node: Any?) -> Any {
        switch node {
        case let mapping as [AnyHashable: Any]:
            var out: [String: Any] = [:]
            for (key, value) in mapping { out["\(key.base)"] = normalize(value) }
            return out
        case let mapping as [String: Any]:
            return mapping.mapValues { normalize($0) }
        case let list as [Any]:
            return list.map { normalize($0) }
        case let value?:
            return value
        case nil:
            return NSNull()
        }
    }
}
