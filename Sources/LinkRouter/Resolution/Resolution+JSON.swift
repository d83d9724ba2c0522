import JSONOutput

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

extension JSONBytes {
    /// A route target: `{"params":{…},"route":"…"}`.
    mutating func target(_ target: RouteTarget) {
        open()
        key("params")
        dictionary(target.params)
        field("route", target.route)
        close()
    }
}
