internal import Yams

/// Share links: `share`.
extension ManifestParser {
    /// `share`: the share path (with a `:token` param), its hosts, the routes it opens, the unavailable message, the
    /// call-to-action route per state, the badges and which share URL is a new link's `url`; nil without a `share`
    /// section.
    func parseShare(_ shareNode: Node?, in manifest: AppManifest, pendingRoutes: inout RouteReferences) -> AppManifest.ShareConfig? {
        guard let shareNode else { return nil }
        let fields = reader.mapping(shareNode, context: "share", allowed: ["path", "hosts", "route", "unavailableRoute", "message", "cta", "badges", "url", "pathPatterns"],
                                    required: ["path", "route", "unavailableRoute"])
        var share = AppManifest.ShareConfig(path: "/s/:token", hosts: [], route: "", unavailableRoute: "",
                                            unavailableMessage: "This link is no longer available.", cta: [:])
        if let node = fields["path"], let path = reader.string(node, context: "share.path") {
            share.path = path
            checkSharePath(path, node)
        }
        for (host, node) in reader.strings(fields["hosts"], context: "share.hosts") {
            if !manifest.hosts.contains(host.lowercased()) {
                reader.fail(.badValue, node, "share host '\(host)' is not one of the app's hosts", hint: "add it to 'hosts'")
            }
            share.hosts.append(host.lowercased())
        }
        if let node = fields["route"], let route = reader.string(node, context: "share.route") {
            share.route = route
            pendingRoutes.append((route, node))
        }
        if let node = fields["unavailableRoute"], let route = reader.string(node, context: "share.unavailableRoute") {
            share.unavailableRoute = route
            pendingRoutes.append((route, node))
        }
        if let message = reader.string(fields["message"], context: "share.message") { share.unavailableMessage = message }
        for (state, keyNode, value) in reader.pairs(fields["cta"], context: "share.cta") {
            _ = checkState(state, keyNode, manifest)
            if let route = reader.string(value, context: "share.cta.\(state)") {
                share.cta[state] = route
                pendingRoutes.append((route, value))
            }
        }
        share.badges = badges(fields["badges"])
        if let node = fields["url"], let text = reader.string(node, context: "share.url") {
            if let kind = AppManifest.ShareConfig.URLKind(rawValue: text) {
                share.url = kind
            } else {
                reader.fail(.badValue, node, "share.url '\(text.prefix(80))' is neither 'token' nor 'short'",
                            hint: "write 'token' (the signed token's URL, the default) or 'short' (the short id's URL)")
            }
        }
        share.pathPatterns = pathPatterns(fields["pathPatterns"])
        return share
    }

    /// `share.pathPatterns`: at most `CustomPathPattern.maxPatterns` patterns, each well-formed, none twice.
    private func pathPatterns(_ node: Node?) -> [CustomPathPattern] {
        let entries = reader.strings(node, context: "share.pathPatterns")
        if entries.count > CustomPathPattern.maxPatterns {
            reader.fail(.badValue, node, "share.pathPatterns has \(entries.count) patterns, more than \(CustomPathPattern.maxPatterns)",
                        hint: "keep at most \(CustomPathPattern.maxPatterns) (one '*' segment covers any number of paths)")
            return []
        }
        var patterns: [CustomPathPattern] = []
        for (text, node) in entries {
            do {
                let pattern = try CustomPathPattern(parsing: text)
                guard !patterns.contains(pattern) else {
                    reader.fail(.duplicateID, node, "path pattern '\(text)' appears twice in share.pathPatterns", hint: "keep one")
                    continue
                }
                patterns.append(pattern)
            } catch {
                reader.fail(.badPattern, node, error.message, hint: error.hint)
            }
        }
        return patterns
    }

    /// `share.path`: a valid pattern with a `:token` param and no optional parts.
    private func checkSharePath(_ path: String, _ node: Node) {
        do {
            let pattern = try PathPattern(parsing: path)
            if !pattern.paramNames.contains("token") || pattern.segments.contains(where: { $0.optional }) {
                reader.fail(.badPattern, node, "share.path '\(path)' has no ':token' param (or has optional parts)",
                            hint: "write it like '/s/:token'")
            }
        } catch {
            reader.fail(.badPattern, node, error.message, hint: error.hint)
        }
    }

    /// `share.badges`: badge id → text, each id well-formed, each text 1–200 characters, at most 32 badges.
    private func badges(_ node: Node?) -> [String: String] {
        typealias Share = AppManifest.ShareConfig
        let entries = reader.pairs(node, context: "share.badges")
        if entries.count > Share.maxBadges {
            reader.fail(.badValue, node, "share.badges has \(entries.count) badges, more than \(Share.maxBadges)",
                        hint: "keep at most \(Share.maxBadges)")
            return [:]
        }
        var badges: [String: String] = [:]
        for (id, keyNode, value) in entries {
            guard Share.isBadgeID(id) else {
                reader.fail(.badValue, keyNode, "badge id '\(id.prefix(80))' is not 1–\(Share.maxBadgeIDLength) letters, digits, '-' or '_'",
                            hint: "write an id such as 'privateUpload'")
                continue
            }
            if badges[id] != nil {
                reader.fail(.duplicateID, keyNode, "badge '\(id)' appears twice in share.badges", hint: "keep one")
                continue
            }
            guard let text = reader.string(value, context: "share.badges.\(id)") else { continue }
            if text.count > Share.maxBadgeTextLength {
                reader.fail(.badValue, value, "the text of badge '\(id)' is \(text.count) characters, more than \(Share.maxBadgeTextLength)",
                            hint: "shorten it")
                continue
            }
            badges[id] = text
        }
        return badges
    }
}
