public import ICalendar

/// One problem found while reading or mapping a calendar: the parser's diagnostics plus mapping problems.
public struct CalendarDiagnostic: Codable, Sendable, Equatable {
    /// 1-based line in the .ics file.
    public var line: Int
    /// Machine code (`missingColon`, `noRule`, `noUID`, …).
    public var code: String
    /// What is wrong.
    public var message: String

    /// Creates a diagnostic.
    public init(line: Int, code: String, message: String) {
        self.line = line
        self.code = code
        self.message = message
    }
}

/// One VEVENT / VTODO / VJOURNAL of a calendar and where it opens in the app.
public struct CalendarItem: Codable, Sendable, Equatable {
    /// VEVENT, VTODO or VJOURNAL.
    public var component: String
    /// The line of its BEGIN.
    public var line: Int
    /// UID, when present.
    public var uid: String?
    /// RECURRENCE-ID, when present (one instance of a recurring item).
    public var recurrenceID: String?
    /// SUMMARY (TEXT unescaped).
    public var summary: String?
    /// DTSTART as written.
    public var start: String?
    /// The TZID parameter of DTSTART.
    public var startTZID: String?
    /// URL as written.
    public var url: String?
    /// True for `STATUS:CANCELLED` or a calendar with `METHOD:CANCEL`.
    public var cancelled: Bool
    /// The calendar's METHOD (PUBLISH, REQUEST, CANCEL, …), when there is one.
    public var method: String?
    /// Where the item opens: the followed link's resolution, or the rule's route; nil when no rule applies.
    public var resolution: Resolution?
    /// Problems with this item.
    public var diagnostics: [CalendarDiagnostic]
}

/// The result of resolving a calendar file.
public struct CalendarReport: Codable, Sendable, Equatable {
    /// Items in file order.
    public var items: [CalendarItem]
    /// Problems of the file as a whole (the parser's diagnostics).
    public var diagnostics: [CalendarDiagnostic]
}

/// Maps the items of an `.ics` file to routes with the manifests' `ics` rules.
///
/// Pure: no I/O. A URL property that is one of our links (a share URL or an app link), on a rule with
/// `followLinks`, is resolved like any link through the ``Router`` and that result is the item's resolution.
public struct CalendarResolver: Sendable {
    /// Components mapped to items.
    public static let itemComponents: Set<String> = ["VEVENT", "VTODO", "VJOURNAL"]

    /// The router whose manifests hold the rules.
    public let router: Router
    /// The parser (and its caps) used on the file.
    public let parser: ICalendarParser

    /// Creates a resolver.
    public init(router: Router, parser: ICalendarParser = ICalendarParser()) {
        self.router = router
        self.parser = parser
    }

    /// Parses `bytes` and resolves every item.
    /// - Parameters:
    ///   - bytes: the .ics file.
    ///   - state: the caller's session state (nil: each app's unauthenticated state).
    ///   - app: restrict the rules to this app; nil tries every loaded app in load order.
    ///   - links: the share-token lookup, as for ``Router/resolve(url:state:app:links:)``.
    /// - Throws: ``ICalendarError`` when a cap is hit: the file cannot be read as a calendar at all.
    public func resolve(
        _ bytes: [UInt8], state: String?, app: String? = nil,
        links: (ShareLinkQuery) -> LinkStatus = { _ in .unknown }
    ) throws(ICalendarError) -> CalendarReport {
        let document = try parser.parse(bytes)
        var items: [CalendarItem] = []
        for top in document.components {
            if top.name == "VCALENDAR" {
                let method = top.property("METHOD")?.value.uppercased()
                for component in top.components where Self.itemComponents.contains(component.name) {
                    items.append(item(component, method: method, state: state, app: app, links: links))
                }
            } else if Self.itemComponents.contains(top.name) {
                items.append(item(top, method: nil, state: state, app: app, links: links))
            }
        }
        let diagnostics = document.diagnostics.map {
            CalendarDiagnostic(line: $0.line, code: $0.code.description, message: $0.message)
        }
        return CalendarReport(items: items, diagnostics: diagnostics)
    }

    private func item(
        _ component: ICalendarComponent, method: String?, state: String?, app: String?,
        links: (ShareLinkQuery) -> LinkStatus
    ) -> CalendarItem {
        let status = component.property("STATUS")?.value.uppercased()
        var item = CalendarItem(
            component: component.name, line: component.line, uid: component.property("UID")?.value,
            recurrenceID: component.property("RECURRENCE-ID")?.value, summary: component.property("SUMMARY")?.value,
            start: component.property("DTSTART")?.value, startTZID: component.property("DTSTART")?.parameter("TZID"),
            url: component.property("URL")?.value, cancelled: method == "CANCEL" || status == "CANCELLED",
            method: method, resolution: nil, diagnostics: [])
        if item.uid == nil {
            item.diagnostics.append(
                CalendarDiagnostic(line: component.line, code: "noUID", message: "\(component.name) has no UID"))
        }
        let candidates = app.map { [$0] } ?? router.appIDs
        for appID in candidates {
            guard let manifest = router.manifest(app: appID),
                let rule = manifest.ics.first(where: { $0.component.uppercased() == component.name })
            else { continue }
            if rule.followLinks, let url = item.url, router.app(for: url) != nil {
                item.resolution = router.resolve(url: url, state: state, app: nil, links: links)
                return item
            }
            var params: [String: String] = [:]
            for (param, propertyName) in rule.params {
                guard let property = component.property(propertyName) else {
                    item.diagnostics.append(
                        CalendarDiagnostic(
                            line: component.line, code: "missingProperty",
                            message: "\(component.name) has no \(propertyName) for param '\(param)' of \(rule.route)"))
                    continue
                }
                params[param] = property.value
            }
            item.resolution = router.open(
                app: appID, route: rule.route, params: params, url: item.url ?? "", state: state)
            return item
        }
        item.diagnostics.append(
            CalendarDiagnostic(
                line: component.line, code: "noRule", message: "no manifest has an ics rule for \(component.name)"))
        return item
    }
}
