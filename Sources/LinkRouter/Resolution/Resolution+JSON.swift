/// A hand-written JSON encoding of `Resolution`: the same document `JSONEncoder` (sorted keys, slashes unescaped)
/// makes, written straight into bytes. `POST /v1/resolve` answers with it; Foundation's encoder cost a fifth of the
/// endpoint's CPU. Keys are written in sorted order; absent optionals are left out, as `encodeIfPresent` does.
extension Resolution {
    /// The resolution as UTF-8 JSON.
    public func jsonBytes() -> [UInt8] {
        var out = JSONBytes()
        out.bytes.reserveCapacity(512)
        out.open()
        if let afterActions {
            out.key("afterActions")
            out.open()
            for (name, target) in afterActions.sorted(by: { JSONBytes.keyOrder($0.key, $1.key) }) {
                out.key(name)
                out.target(target)
            }
            out.close()
        }
        out.field("app", app)
        out.field("cta", cta)
        if let fallback {
            out.key("fallback")
            out.open()
            out.key("params")
            out.dictionary(fallback.params)
            out.field("presentation", fallback.presentation?.rawValue)
            out.key("returnTo")
            out.dictionary(fallback.returnTo)
            out.field("route", fallback.route)
            out.key("stack")
            out.stringArray(fallback.stack)
            out.field("tab", fallback.tab)
            out.key("tabBarVisible")
            out.bytes.append(contentsOf: (fallback.tabBarVisible ? "true" : "false").utf8)
            out.close()
        }
        if let intercept {
            out.key("intercept")
            out.open()
            if let continuation = intercept.continuation {
                out.key("continuation")
                out.open()
                out.key("params")
                out.dictionary(continuation.params)
                out.field("route", continuation.route)
                out.field("url", continuation.url)
                out.close()
            }
            out.field("returnTo", intercept.returnTo)
            out.field("route", intercept.route)
            out.close()
        }
        if let link {
            out.key("link")
            out.open()
            if let expiresAt = link.expiresAt {
                out.key("expiresAt")
                out.bytes.append(contentsOf: String(expiresAt).utf8)
            }
            out.field("id", link.id)
            out.field("status", link.status)
            out.close()
        }
        out.field("message", message)
        out.field("outcome", outcome.rawValue)
        out.key("params")
        out.dictionary(params)
        out.field("presentation", presentation?.rawValue)
        if let problem {
            out.key("problem")
            out.open()
            out.field("code", problem.code.description)
            out.field("message", problem.message)
            out.close()
        }
        out.key("returnTo")
        out.dictionary(returnTo)
        out.field("route", route)
        out.key("stack")
        out.stringArray(stack)
        out.field("tab", tab)
        out.key("tabBarVisible")
        out.bytes.append(contentsOf: (tabBarVisible ? "true" : "false").utf8)
        if let update {
            out.key("update")
            out.open()
            out.field("platform", update.platform)
            out.field("requiredVersion", update.requiredVersion)
            out.field("storeURL", update.storeURL)
            out.close()
        }
        out.close()
        return out.bytes
    }
}

/// A small JSON writer: objects, strings, string dictionaries; commas handled per nesting level.
struct JSONBytes {
    var bytes: [UInt8] = []
    /// Per open object: whether a member was written (the next one needs a comma).
    private var hasMember: [Bool] = []

    /// The order JSONEncoder's `.sortedKeys` gives on Linux: by UTF-8 bytes (`"B" < "_x" < "a"`), no case folding.
    static func keyOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    mutating func open() {
        bytes.append(UInt8(ascii: "{"))
        hasMember.append(false)
    }

    mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        hasMember.removeLast()
    }

    /// Writes `"name":`, with a comma before it when the object has members already.
    mutating func key(_ name: String) {
        if hasMember[hasMember.count - 1] { bytes.append(UInt8(ascii: ",")) }
        hasMember[hasMember.count - 1] = true
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A string member; nothing when `value` is nil.
    mutating func field(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    mutating func dictionary(_ values: [String: String]) {
        open()
        for (name, value) in values.sorted(by: { Self.keyOrder($0.key, $1.key) }) {
            key(name)
            string(value)
        }
        close()
    }

    /// A JSON array of strings.
    mutating func stringArray(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func target(_ target: RouteTarget) {
        open()
        key("params")
        dictionary(target.params)
        field("route", target.route)
        close()
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, `/` and
    /// non-ASCII written as they are (what JSONEncoder does with `.withoutEscapingSlashes`).
    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            // Most strings need no escape: one copy.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
            } else {
                escaped(utf8)
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
    }
}
