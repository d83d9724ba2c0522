internal import Yams

/// Calendar files: `ics`.
extension ManifestParser {
    /// `ics.rules`: per rule, the component it applies to, the route it opens and where that route's params come from.
    func parseICS(_ node: Node?, pendingRoutes: inout RouteReferences) -> [AppManifest.ICSRule] {
        let ics = reader.mapping(node, context: "ics", allowed: ["rules"])
        var rules: [AppManifest.ICSRule] = []
        for item in reader.list(ics["rules"], context: "ics.rules") {
            rules.append(parseICSRule(item, pendingRoutes: &pendingRoutes))
        }
        return rules
    }

    /// One `ics.rules` item: `component` (VEVENT, VTODO or VJOURNAL), `route`, `params` and `followLinks`.
    private func parseICSRule(_ item: Node, pendingRoutes: inout RouteReferences) -> AppManifest.ICSRule {
        let fields = reader.mapping(item, context: "an ics rule", allowed: ["component", "route", "params", "followLinks"],
                                    required: ["component", "route"])
        var rule = AppManifest.ICSRule(component: "", route: "", params: [:],
                                       followLinks: reader.bool(fields["followLinks"], context: "followLinks") ?? false)
        if let node = fields["component"], let component = reader.string(node, context: "component") {
            if !["VEVENT", "VTODO", "VJOURNAL"].contains(component) {
                reader.fail(.badValue, node, "component '\(component)' is not VEVENT, VTODO or VJOURNAL",
                            hint: YAMLReader.closest(component, in: ["VEVENT", "VTODO", "VJOURNAL"]).map { "did you mean '\($0)'?" }
                                ?? "use VEVENT, VTODO or VJOURNAL")
            }
            rule.component = component
        }
        if let node = fields["route"], let route = reader.string(node, context: "route") {
            rule.route = route
            pendingRoutes.append((route, node))
        }
        rule.params = parseICSParams(fields["params"])
        return rule
    }

    /// An ics rule's `params`: route param name → the iCalendar property (upper-case letters, digits, `-`) it is read from.
    private func parseICSParams(_ node: Node?) -> [String: String] {
        var params: [String: String] = [:]
        for (param, _, value) in reader.pairs(node, context: "params") {
            guard let property = reader.string(value, context: "params.\(param)") else { continue }
            let valid = !property.isEmpty && property.allSatisfy { ($0.isASCII && ($0.isUppercase || $0.isNumber)) || $0 == "-" }
            if !valid {
                reader.fail(.badValue, value, "'\(property)' is not an iCalendar property name",
                            hint: "write an upper-case name such as UID, DTSTART, SUMMARY, URL or X-VENDOR-NAME")
            }
            params[param] = property
        }
        return params
    }
}
