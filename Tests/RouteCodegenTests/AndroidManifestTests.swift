import Foundation
import FoundationXML
import LinkRouter
import LinkdTestSupport
import RouteCodegen
import Testing

/// The `android-manifest` output read back as Android reads it: XML (FoundationXML's parser), then aapt's string
/// escapes, then each `<data>` path matched as `android.os.PatternMatcher` matches (its simple glob, quirks included).
/// Every URL linkd resolves to a route — each pattern variant with a value of each param's type, with and without a
/// trailing `/` — must open the app on each host; the schemes and hosts must be the manifest's.
@Suite("Android intent filters cover what linkd resolves")
struct AndroidManifestTests {
    static let fixtures = Fixture.all

    @Test("schemes, hosts and autoVerify are the manifest's", arguments: fixtures.map(\.name))
    func schemesAndHosts(name: String) throws {
        let fixture = Self.fixtures.first { $0.name == name }!
        let filters = try IntentFilters.parse(fixture.generate(.androidManifest)).filters
        let manifest = fixture.manifest
        #expect(Set(filters.flatMap(\.schemes)) == Set(manifest.schemes + (manifest.hosts.isEmpty ? [] : ["https"])))
        #expect(Set(filters.flatMap(\.hosts)) == Set(manifest.hosts))
        for filter in filters {
            #expect(filter.actions == ["android.intent.action.VIEW"])
            #expect(Set(filter.categories) == ["android.intent.category.DEFAULT", "android.intent.category.BROWSABLE"])
            // App Links are verified; the custom schemes, which no domain vouches for, are not.
            #expect(filter.verified == (filter.schemes == ["https"]), "\(filter.schemes)")
            if filter.schemes != ["https"] {
                #expect(filter.hosts.isEmpty && filter.paths.isEmpty, "a custom scheme takes every URL of it")
            }
        }
    }

    @Test("every URL linkd resolves to a route opens the app, on every host; a path of no route does not", arguments: fixtures.map(\.name))
    func routesAreCovered(name: String) throws {
        let fixture = Self.fixtures.first { $0.name == name }!
        let manifest = fixture.manifest
        let router = try Router(manifests: [manifest])
        let filters = try IntentFilters.parse(fixture.generate(.androidManifest))
        var tried = 0
        for id in manifest.routeOrder {
            let route = manifest.routes[id]!
            for text in route.patterns {
                let pattern = try PathPattern(parsing: text)
                for variant in pattern.expanded {
                    let (decoded, encoded) = Self.samplePath(variant)
                    let query = route.query.filter(\.value.required).map { "\($0.key)=\(Fixture.sample($0.value.type))" }.sorted().joined(separator: "&")
                    for host in manifest.hosts {
                        for trailing in variant.isEmpty ? [""] : ["", "/"] {
                            let url = "https://\(host)\(encoded)\(trailing)" + (query.isEmpty ? "" : "?" + query)
                            // The sample is a URL linkd resolves to this route…
                            let resolution = router.resolve(url: url, state: route.states.first)
                            #expect(resolution.route == id && resolution.outcome == .route, "\(url): \(resolution.outcome) \(resolution.route ?? "-")")
                            // …and Android opens the app with it.
                            let opens = filters.opens(scheme: "https", host: host, path: decoded + trailing)
                            #expect(opens, "\(name) \(id): \(decoded + trailing) on \(host)")
                            tried += 1
                        }
                    }
                }
            }
        }
        if let share = manifest.share {
            let path = "/" + (try PathPattern(parsing: share.path)).segments.map { segment -> String in
                if case .literal(let text) = segment.segment { return text }
                return "AbCd0123_-"
            }.joined(separator: "/")
            for host in manifest.shareHosts {
                let opens = filters.opens(scheme: "https", host: host, path: path)
                #expect(opens, "\(name) share \(path) on \(host)")
            }
        }
        for host in manifest.hosts {
            let opensOther = filters.opens(scheme: "https", host: host, path: "/definitely/not/a/route/at/all")
            let opensOtherHost = filters.opens(scheme: "https", host: "other.example", path: "/tab/recents")
            #expect(!opensOther && !opensOtherHost)
        }
        for scheme in manifest.schemes {
            let opens = filters.opens(scheme: scheme, host: "anything", path: "/at/all")
            #expect(opens, "\(scheme)")
        }
        #expect(tried > 0 || manifest.hosts.isEmpty)
    }

    @Test("share.pathPatterns are in the share filter: every path of a pattern opens the app on the share host")
    func pathPatterns() throws {
        let source = try PathPatternFixtures.handzManifest
        let manifest = try ManifestLoader.parse(yaml: source, file: "handz.yaml")
        let fixture = Fixture(name: "handz-patterns", source: source, manifest: manifest)
        let xml = fixture.generate(.androidManifest)
        #expect(xml.contains("<data android:pathPattern=\"/l/.*\" />") && xml.contains("<data android:pathPattern=\"/....\" />"))
        let filters = try IntentFilters.parse(xml)
        for path in ["/l/AbCd", "/l/AbCd/", "/WxYz", "/WxYz/", "/abcde", "/tab/anything"] {
            #expect(filters.opens(scheme: "https", host: "links.handz.example", path: path), "\(path)")
        }
        #expect(!filters.opens(scheme: "https", host: "links.handz.example", path: "/abc"))
    }

    @Test("the glob below is Android's: its lazy `.*`, its `X*`, its escapes")
    func globIsAndroids() {
        #expect(AndroidGlob.matches("/flows/.*/edit", "/flows/6f1c/edit"))
        #expect(!AndroidGlob.matches("/flows/.*/edit", "/flows/6f1c/view"))
        #expect(AndroidGlob.matches("/flows/.*", "/flows/"))
        #expect(AndroidGlob.matches("/a/.*", "/a/b/c"))
        // `.*` takes up to the first occurrence of what follows it and never goes back (Android's known quirk).
        #expect(!AndroidGlob.matches(".*\\.pdf", "/a.b.pdf"))
        #expect(AndroidGlob.matches("/ab*c", "/abbbc") && AndroidGlob.matches("/ab*c", "/ac"))
        // An escaped `.` is still any character outside `.*` (PatternMatcher tests `c != '.'` before comparing).
        #expect(AndroidGlob.matches("/v1\\.0", "/v1x0"))
        #expect(AndroidGlob.matches("/a\\*", "/a*") && !AndroidGlob.matches("/a\\*", "/ab"))
        #expect(!AndroidGlob.matches("/tab/recents/*", "/tab/recents"))
    }
}

/// The intent filters of an `android-manifest` output.
struct IntentFilters {
    struct Filter {
        var verified = false
        var actions: [String] = []
        var categories: [String] = []
        var schemes: [String] = []
        var hosts: [String] = []
        var paths: [PathRule] = []
    }

    /// A `<data>` element's path rule, after aapt's escapes.
    enum PathRule {
        case literal(String), prefix(String), glob(String)

        func matches(_ path: String) -> Bool {
            switch self {
            case .literal(let text): text == path
            case .prefix(let text): path.hasPrefix(text)
            case .glob(let pattern): AndroidGlob.matches(pattern, path)
            }
        }
    }

    var filters: [Filter]

    /// Whether some filter takes the URL, as `IntentFilter.matchData` does: the scheme; the host when the filter
    /// names any; the path when the filter names any (and a host).
    func opens(scheme: String, host: String, path: String) -> Bool {
        filters.contains { filter in
            guard filter.schemes.contains(scheme) else { return false }
            guard !filter.hosts.isEmpty else { return true }
            guard filter.hosts.contains(host) else { return false }
            return filter.paths.isEmpty || filter.paths.contains { $0.matches(path) }
        }
    }

    /// Reads the document: its well-formedness by XMLParser, every value through aapt's escapes.
    static func parse(_ text: String) throws -> IntentFilters {
        let reader = Reader()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = reader
        guard parser.parse() else { throw ParseFailure(message: "not XML: \(parser.parserError.map { "\($0)" } ?? "?")") }
        if let failure = reader.failure { throw failure }
        return IntentFilters(filters: reader.filters)
    }

    struct ParseFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var filters: [Filter] = []
        var current: Filter?
        var failure: ParseFailure?

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            do {
                switch element {
                case "intent-filter":
                    current = Filter(verified: attributes["android:autoVerify"] == "true")
                case "action":
                    current?.actions.append(try Aapt.unescape(attributes["android:name"] ?? ""))
                case "category":
                    current?.categories.append(try Aapt.unescape(attributes["android:name"] ?? ""))
                case "data":
                    guard current != nil else { failure = ParseFailure(message: "<data> outside an <intent-filter>"); return }
                    if let scheme = attributes["android:scheme"] { current?.schemes.append(try Aapt.unescape(scheme)) }
                    if let host = attributes["android:host"] { current?.hosts.append(try Aapt.unescape(host)) }
                    if let path = attributes["android:path"] { current?.paths.append(.literal(try Aapt.unescape(path))) }
                    if let path = attributes["android:pathPrefix"] { current?.paths.append(.prefix(try Aapt.unescape(path))) }
                    if let path = attributes["android:pathPattern"] { current?.paths.append(.glob(try Aapt.unescape(path))) }
                default:
                    break
                }
            } catch {
                failure = error as? ParseFailure ?? ParseFailure(message: "\(error)")
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "intent-filter", let current {
                filters.append(current)
                self.current = nil
            }
        }
    }
}

/// aapt's reading of a manifest attribute's text: `\` escapes the next character (`\n`, `\t`, `\uXXXX` as named); a
/// quote not escaped would start or end a quoted span, which none of the outputs means: refused here.
enum Aapt {
    static func unescape(_ text: String) throws -> String {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "\\":
                guard let next = scalars.next() else { throw IntentFilters.ParseFailure(message: "a lone \\ ends \(text)") }
                switch next {
                case "n": out += "\n"
                case "t": out += "\t"
                case "u":
                    var hex = ""
                    for _ in 0..<4 { if let digit = scalars.next() { hex.unicodeScalars.append(digit) } }
                    guard let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) else {
                        throw IntentFilters.ParseFailure(message: "bad \\u in \(text)")
                    }
                    out.unicodeScalars.append(decoded)
                default: out.unicodeScalars.append(next)
                }
            case "\"", "'":
                throw IntentFilters.ParseFailure(message: "an unescaped quote in \(text)")
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// `android.os.PatternMatcher`'s simple glob (`PATTERN_SIMPLE_GLOB`, what `android:pathPattern` is), over UTF-16
/// units as Java's strings are: `.` is any character; `X*` is any run of `X`, none included; `.*` is any run, taken
/// up to the first occurrence of the character after it (escaped or not) and never given back; `\` escapes the next
/// character — but an escaped `.` outside `.*` is any character all the same, as Android compares it.
enum AndroidGlob {
    static func matches(_ pattern: String, _ path: String) -> Bool {
        let pattern = Array(pattern.utf16), path = Array(path.utf16)
        let dot = UInt16(UInt8(ascii: ".")), star = UInt16(UInt8(ascii: "*")), backslash = UInt16(UInt8(ascii: "\\"))
        if pattern.isEmpty { return path.isEmpty }
        func at(_ index: Int) -> UInt16 { index < pattern.count ? pattern[index] : 0 }
        var p = 0, m = 0
        while p < pattern.count && m < path.count {
            var character = pattern[p]
            p += 1
            let escaped = character == backslash
            if escaped {
                character = at(p)
                p += 1
            }
            if at(p) == star {
                p += 1
                if !escaped && character == dot {
                    if p >= pattern.count { return true }
                    var stop = pattern[p]
                    if stop == backslash {
                        p += 1
                        stop = at(p)
                    }
                    while m < path.count && path[m] != stop { m += 1 }
                    if m == path.count { return false }
                    p += 1
                    m += 1
                } else {
                    while m < path.count && path[m] == character { m += 1 }
                }
            } else {
                if character != dot && path[m] != character { return false }
                m += 1
            }
        }
        if p >= pattern.count && m >= path.count { return true }
        return p == pattern.count - 2 && pattern[p] == dot && pattern[p + 1] == star
    }
}

extension AndroidManifestTests {
    /// A path of `variant` with a value of each param's type: as Android hands it over (decoded) and as the URL
    /// writes it (each literal as linkd's canonical spelling).
    static func samplePath(_ variant: [PathPattern.Segment]) -> (decoded: String, encoded: String) {
        var decoded = "", encoded = ""
        for segment in variant {
            switch segment {
            case .literal(let text):
                decoded += "/" + text
                encoded += "/" + AppManifest.appleEncoded(text)
            case .param(_, let type):
                let value = type == .string ? "abc" : Fixture.sample(type)
                decoded += "/" + value
                encoded += "/" + value
            case .wildcard:
                decoded += "/a/b"
                encoded += "/a/b"
            }
        }
        return (decoded.isEmpty ? "/" : decoded, encoded.isEmpty ? "/" : encoded)
    }
}
