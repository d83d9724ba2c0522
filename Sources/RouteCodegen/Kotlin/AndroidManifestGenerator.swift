import LinkRouter

/// The `android-manifest` output: the `<intent-filter>` elements of the activity that opens the app's links, in one
/// XML document (the `<intent-filters>` element around them is there only to make it one; copy the filters into the
/// `<activity>` of `AndroidManifest.xml`).
///
/// - App Links, verified (`android:autoVerify="true"`, against the `assetlinks.json` linkd serves): one filter for
///   the route patterns on every host, one for the share path on the share hosts. Each pattern variant (optional
///   segments present or absent) is an `android:path` when it is all literal (and its form with a trailing `/`, which
///   linkd resolves too), else an `android:pathPattern` where each param is `.*` (with its trailing-`/` form unless
///   it ends in one). The share filter also holds the manifest's `share.pathPatterns` (`*` as `.*`, `?` as `.`). A filter's data elements combine — every host with every path — as linkd's hosts do.
/// - Custom schemes: one filter with every scheme, no host or path: every URL of the app's own scheme opens the app,
///   and linkd's resolution decides the screen (its not-found route for a URL no pattern takes).
///
/// Android compares paths case-sensitively and after decoding; `pathPattern` cannot say "not a `/`" or a type, so a
/// filter may take a few URLs linkd does not resolve (the app then shows what the resolution says), never the
/// reverse.
struct AndroidManifestGenerator {
    let table: RouteTable
    let identity: ManifestIdentity

    /// One `<data>` element's path attribute.
    enum PathData: Hashable {
        case path(String)
        case pathPattern(String)

        var xml: String {
            switch self {
            case .path(let text): "<data android:path=\"\(text)\" />"
            case .pathPattern(let text): "<data android:pathPattern=\"\(text)\" />"
            }
        }
    }

    func render() -> String {
        var out = CodeWriter()
        out.line("<?xml version=\"1.0\" encoding=\"utf-8\"?>")
        for line in Header(language: .androidManifest, table: table, identity: identity).lines {
            out.line("<!-- \(Self.comment(line)) -->")
        }
        out.line("<!--")
        out.line("  The intent filters of the activity that opens the links of \(Self.comment(table.app)): copy the <intent-filter>")
        out.line("  elements into that <activity> of AndroidManifest.xml. The <intent-filters> element around them is only here")
        out.line("  to make this one XML document.")
        out.line("-->")
        out.block("<intent-filters xmlns:android=\"http://schemas.android.com/apk/res/android\">", "</intent-filters>") { out in
            let routes = table.routes.filter { !$0.patterns.isEmpty }
            if !table.hosts.isEmpty && !routes.isEmpty {
                out.line("<!-- App Links: every route pattern on \(Self.comment(table.hosts.joined(separator: ", "))). -->")
                if table.caseInsensitivePaths {
                    out.line("<!-- The manifest compares literal segments case-insensitively; Android takes them as written here. -->")
                }
                writeFilter(verified: true, schemes: ["https"], hosts: table.hosts, to: &out) { out in
                    var seen = Set<PathData>()
                    for route in routes {
                        let data = route.patterns.flatMap(Self.pathData).filter { seen.insert($0).inserted }
                        guard !data.isEmpty else { continue }
                        out.line("<!-- \(Self.comment(route.id)): \(Self.comment(route.patterns.map(\.text).joined(separator: ", "))) -->")
                        for element in data { out.line(element.xml) }
                    }
                }
            }
            if let sharePath = table.sharePath, !table.shareHosts.isEmpty {
                out.line("<!-- Share links: \(Self.comment(sharePath.text)) on \(Self.comment(table.shareHosts.joined(separator: ", "))). -->")
                writeFilter(verified: true, schemes: ["https"], hosts: table.shareHosts, to: &out) { out in
                    for element in Self.pathData(sharePath) { out.line(element.xml) }
                    if !table.sharePathPatterns.isEmpty {
                        out.line("<!-- Custom paths: \(Self.comment(table.sharePathPatterns.map(\.text).joined(separator: ", "))). -->")
                        for element in table.sharePathPatterns.flatMap(Self.pathData) { out.line(element.xml) }
                    }
                }
            }
            if !table.schemes.isEmpty {
                out.line("<!-- The app's own schemes: every URL of them opens the app; linkd's resolution decides the screen. -->")
                writeFilter(verified: false, schemes: table.schemes, hosts: [], to: &out) { _ in }
            }
        }
        return out.text
    }

    private func writeFilter(
        verified: Bool, schemes: [String], hosts: [String], to out: inout CodeWriter, paths: (inout CodeWriter) -> Void
    ) {
        out.block(verified ? "<intent-filter android:autoVerify=\"true\">" : "<intent-filter>", "</intent-filter>") { out in
            out.line("<action android:name=\"android.intent.action.VIEW\" />")
            out.line("<category android:name=\"android.intent.category.DEFAULT\" />")
            out.line("<category android:name=\"android.intent.category.BROWSABLE\" />")
            for scheme in schemes { out.line("<data android:scheme=\"\(Self.attribute(scheme))\" />") }
            for host in hosts { out.line("<data android:host=\"\(Self.attribute(host))\" />") }
            paths(&out)
        }
    }

    /// The path data of `pattern`: per variant, `android:path` when all literal and plainly written (and the form
    /// with a trailing `/`), else `android:pathPattern` (and the trailing-`/` form unless it ends in `.*`).
    static func pathData(_ pattern: PathPattern) -> [PathData] {
        var result: [PathData] = []
        for variant in pattern.expanded {
            let literals = variant.compactMap { segment -> String? in
                if case .literal(let text) = segment { return text }
                return nil
            }
            if literals.count == variant.count, literals.allSatisfy({ $0.unicodeScalars.allSatisfy(isPlain) }) {
                let path = "/" + literals.joined(separator: "/")
                result.append(.path(attribute(path)))
                if !literals.isEmpty { result.append(.path(attribute(path + "/"))) }
                continue
            }
            var text = ""
            for segment in variant {
                text += "/"
                switch segment {
                case .literal(let literal): text += literal.unicodeScalars.map(globCharacter).joined()
                case .param, .wildcard: text += ".*"
                }
            }
            result.append(.pathPattern(text))
            if !text.hasSuffix(".*") { result.append(.pathPattern(text + "/")) }
        }
        var seen = Set<PathData>()
        return result.filter { seen.insert($0).inserted }
    }

    /// The path data of a custom-path pattern (`share.pathPatterns`): an `android:pathPattern` where `*` is `.*`
    /// and `?` is `.` (the alphabet needs no escape), and its trailing-`/` form; all literal, an `android:path`.
    static func pathData(_ pattern: CustomPathPattern) -> [PathData] {
        var text = ""
        var literal = true
        for segment in pattern.segments {
            text += "/"
            switch segment {
            case .literal(let chars): text += chars
            case .wholeSegment: text += ".*"; literal = false
            case .characters(let chars): text += chars.replacing("?", with: "."); literal = false
            }
        }
        if literal { return [.path(text), .path(text + "/")] }
        return [.pathPattern(text), .pathPattern(text + "/")]
    }

    /// Characters an `android:path` takes as they are: nothing XML, aapt's string escapes or a glob reads otherwise.
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-_~!$+,;=:%.".unicodeScalars.contains(scalar)
    }

    /// One character of a literal in an `android:pathPattern`, as the attribute is written: aapt reads `\\` as `\`
    /// (so the glob's escape of `.` and `*` is `\\.`, of `\` is `\\\\`) and `\"`, `\'` as the quotes; `&`, `<`, `>`
    /// and `"` as XML entities; a character XML or aapt would change (controls, white space) as `.`, any character.
    private static func globCharacter(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case ".", "*": return "\\\\" + String(scalar)
        case "\\": return "\\\\\\\\"
        case "\"": return "\\&quot;"
        case "'": return "\\'"
        case "&": return "&amp;"
        case "<": return "&lt;"
        case ">": return "&gt;"
        default:
            // `.` per UTF-16 unit: Android's glob reads a path a unit at a time.
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
                || scalar.properties.generalCategory == .format || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                return String(repeating: ".", count: String(scalar).utf16.count)
            }
            return String(scalar)
        }
    }

    /// A value that needs no aapt escape (schemes, hosts, plain paths), with XML's entities.
    private static func attribute(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("\"", with: "&quot;")
            .replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }

    /// `text` for an XML comment: printable ASCII, no `--`, not ending in `-`.
    private static func comment(_ text: String) -> String {
        var out = Text.ascii(text)
        while out.contains("--") { out = out.replacing("--", with: "- -") }
        if out.hasSuffix("-") { out += " " }
        return out
    }
}
