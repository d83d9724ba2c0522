import Foundation
import Mustache
import Testing
@testable import WebFallback

/// The landing page rendered through compiled skeletons (`CompiledTemplate`) is byte for byte what Mustache renders
/// from the `[String: Any]` context the page had before skeletons (`ReferenceLanding.context`), for the default
/// templates and for an override that uses raw values, inverted sections, `{{.}}`, a comment and set delimiters.
@Suite struct CompiledLandingTests {
    /// Titles with every escaped character, non-ASCII, emoji, marker look-alikes, a joined `&`, and empty.
    static let titles = [
        "Morning flow", "& < > \" '", "<script>alert('x')</script>&amp;", "Grüße — 日本語 ça", "🧘‍♀️ flow 👍🏽 🇩🇪",
        "\u{E000}1&\u{E001}", "\u{E000}0&amp;\u{E001}", "", "&\u{301}<\u{338} \u{600}<", "a\u{E001}b\u{E000}", "1 2 3",
    ]

    static let badgeTexts = ["b1": "One & <1>", "b2": "Twö \"2\" '2'", "b3": "🎖 3 \u{E000}2&\u{E001}"]

    /// A share link's page (store buttons through linkd, the QR code as an image), an app-link page (stores' own
    /// URLs, the QR code inline) and an app without stores or custom scheme.
    enum PageKind: CaseIterable { case shareLink, appLink, bareApp }

    static func page(_ kind: PageKind, title: String, preview: Bool, image: Bool, creator: Bool, badges: Int) -> LandingPage {
        var app = Fixtures.handz
        app.badges = badgeTexts
        if kind == .bareApp { app = AppPageInfo(appID: "bare", displayName: "Bäre & <Co>", language: "de", badges: badgeTexts) }
        let token = "AQ\(title.utf8.reduce(0) { $0 &* 31 &+ Int($1) } & 0xFFFFF)"
        var page = LandingPage(
            app: app, shareURL: "https://links.example.com/s/\(token)?a=1&b=<2>", openInAppURL: "https://links.example.com/s/\(token)",
            customScheme: kind == .bareApp ? nil : "handz", customSchemeURL: kind == .bareApp ? nil : "handz://flow/42?x=\"1\"&y='2'",
            preview: nil, title: preview || title == titles[0] ? nil : title)
        if kind == .shareLink {
            page.installBaseURL = "https://links.example.com/s/\(token)/install"
            page.qrImagePath = "/s/\(token)/qr.svg"
        }
        if preview {
            page.preview = Preview(
                title: title, creatorName: creator ? "Ana <the & \"best\">" : nil, allowCreatorName: true,
                updatedAt: Date(timeIntervalSince1970: 1_790_000_000), imageURL: image ? "https://cdn.example.com/a.jpg?w=1&h=<2>" : nil,
                badges: Array(["b1", "b2", "b3"].prefix(badges)))
        }
        return page
    }

    /// Every page of the matrix: the kind's variants, with and without a preview, image, creator, 0, 1 or 3 badges.
    static func pages(_ kind: PageKind, title: String) -> [LandingPage] {
        var pages = [page(kind, title: title, preview: false, image: false, creator: false, badges: 0)]
        for image in [false, true] {
            for creator in [false, true] {
                for badges in [0, 1, 3] {
                    pages.append(page(kind, title: title, preview: true, image: image, creator: creator, badges: badges))
                }
            }
        }
        return pages
    }

    static let clients: [UserAgentKind] = [.iOS, .android, .desktop, .crawler]

    /// Renders the whole matrix through `renderer` and through Mustache with the reference context; every page is
    /// rendered twice through the renderer (its shape's first render is Mustache's own output, later ones are filled).
    static func expectMatrixMatches(_ renderer: PageRenderer, kind: PageKind, mustache: MustacheTemplate) {
        for title in titles {
            for client in clients {
                for page in pages(kind, title: title) {
                    let reference = mustache.render(ReferenceLanding.context(page, client: client, renderer: renderer))
                    for round in 1...2 {
                        let body = renderer.landing(page, for: client).body
                        expectSameBytes(body, reference, "\(kind) \(client) round \(round) title \(title.debugDescription)")
                    }
                }
            }
        }
    }

    static func expectSameBytes(_ body: String, _ reference: String, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(body.utf8)
        let expected = Array(reference.utf8)
        guard bytes != expected else { return }
        let first = bytes.indices.first { $0 < expected.count && bytes[$0] != expected[$0] } ?? min(bytes.count, expected.count)
        let near = { (b: [UInt8]) in String(decoding: b[max(0, first - 40)..<min(b.count, first + 40)], as: UTF8.self) }
        Issue.record("\(label): differs at byte \(first): \(near(bytes).debugDescription) vs \(near(expected).debugDescription)",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: PageKind.allCases)
    func defaultTemplateMatchesMustache(kind: PageKind) throws {
        let renderer = try Fixtures.renderer()
        let landing = try #require(renderer.template("landing", app: nil))
        #expect(landing.compilable)
        Self.expectMatrixMatches(renderer, kind: kind, mustache: landing.mustache)
        let counts = landing.shapeCounts
        #expect(counts.mustacheOnly == 0, "every shape of the default template compiles")
        #expect(counts.skeletons >= 4 * 13, "one skeleton at least per client and preview shape: \(counts)")
    }

    /// An operator's template: a comment, raw values both ways, inverted sections, `{{.}}` over a string, a list and
    /// its inverted section, set delimiters and a raw value under them, a dotted name and a bool shown as text.
    static let overrideTemplate = """
        {{! a comment with {{title}} in it }}<h1 class="{{#isIOS}}ios{{/isIOS}}{{^isIOS}}other{{/isIOS}}">{{title}}</h1>
        raw {{{title}}} amp {{&appName}} {{^preview}}no preview{{/preview}}
        {{#preview}}{{#title}}[{{.}}]{{/title}}{{#creator}}by {{{.}}}{{/creator}}<ul>{{#badges}}<li data-id="{{id}}">{{{text}}}/{{text}}</li>{{/badges}}</ul>{{^badges}}no badges{{/badges}}{{preview.title}}{{/preview}}
        {{=<% %>=}}<p><%shareURL%> <%&openURL%> <%#preview%><%creator%><%/preview%></p><%={{ }}=%>{{{description}}}
        {{#isDesktop}}<div>{{qrImage}}{{{qrSVG}}}</div>{{/isDesktop}}{{isCrawler}} {{imageURL}} {{missing}}
        """

    @Test(arguments: PageKind.allCases)
    func overrideTemplateMatchesMustache(kind: PageKind) throws {
        let (renderer, directory) = try Self.renderer(overriding: Self.overrideTemplate, for: kind == .bareApp ? "bare" : "handz")
        defer { try? FileManager.default.removeItem(at: directory) }
        let landing = try #require(renderer.template("landing", app: kind == .bareApp ? "bare" : "handz"))
        Self.expectMatrixMatches(renderer, kind: kind, mustache: try MustacheTemplate(string: Self.overrideTemplate))
        let counts = landing.shapeCounts
        #expect(counts.mustacheOnly == 0 && counts.skeletons >= 4 * 13, "\(counts)")
        let sample = renderer.landing(Self.page(kind, title: "<b>", preview: true, image: true, creator: true, badges: 1), for: .iOS).body
        #expect(sample.contains("raw <b> amp ") && sample.contains("[&lt;b&gt;]") && sample.contains("<li data-id=\"b1\">One & <1>/One &amp; &lt;1&gt;</li>"))
    }

    /// A template that transforms a value (`uppercased`, `reversed`) is not a placement of it: the probe or the
    /// parse finds out, and the shape is rendered by Mustache, still the same bytes. The first title has no letter,
    /// so for `uppercased` only the probe can tell: were the skeleton kept, "Morning flow" would come out as it is.
    @Test(arguments: ["<h1>{{uppercased(title)}}</h1>{{title}}", "<h1>{{reversed(title)}}</h1>", "{{#preview}}{{capitalized(title)}}{{/preview}}"])
    func transformedValuesAreLeftToMustache(source: String) throws {
        let (renderer, directory) = try Self.renderer(overriding: source, for: "handz")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mustache = try MustacheTemplate(string: source)
        // "1 2 3" first: no letter in it, so only the probe tells uppercasing from placing.
        for title in ["1 2 3"] + Self.titles {
            let page = Self.page(.shareLink, title: title, preview: true, image: false, creator: false, badges: 0)
            let reference = mustache.render(ReferenceLanding.context(page, client: .iOS, renderer: renderer))
            Self.expectSameBytes(renderer.landing(page, for: .iOS).body, reference, "\(source) \(title.debugDescription)")
        }
        // Only the empty title's shape, which has no slot, keeps a skeleton.
        let counts = try #require(renderer.template("landing", app: "handz")).shapeCounts
        #expect(counts.skeletons <= 1 && counts.mustacheOnly == 1, "\(counts)")
    }

    /// A template holding a marker character is never compiled, and renders as Mustache does.
    @Test func templateWithMarkerCharacterIsRenderedByMustache() throws {
        let source = "<p>\u{E000}{{title}}&\u{E001} {{{title}}}\u{E001}</p>"
        let (renderer, directory) = try Self.renderer(overriding: source, for: "handz")
        defer { try? FileManager.default.removeItem(at: directory) }
        let landing = try #require(renderer.template("landing", app: "handz"))
        #expect(!landing.compilable)
        let mustache = try MustacheTemplate(string: source)
        for title in Self.titles {
            let page = Self.page(.shareLink, title: title, preview: false, image: false, creator: false, badges: 0)
            let reference = mustache.render(ReferenceLanding.context(page, client: .android, renderer: renderer))
            Self.expectSameBytes(renderer.landing(page, for: .android).body, reference, title.debugDescription)
        }
        #expect(landing.shapeCounts.skeletons == 0 && landing.shapeCounts.mustacheOnly == 0)
        #expect(renderer.landing(Self.page(.shareLink, title: "<x>", preview: false, image: false, creator: false, badges: 0), for: .iOS)
            .body == "<p>\u{E000}&lt;x&gt;&\u{E001} <x>\u{E001}</p>")
    }

    /// Past its capacity a template keeps no more shapes, and renders the new ones with Mustache.
    @Test func shapesPastCapacityAreRenderedByMustache() throws {
        let source = "{{#a}}A{{/a}}{{#b}}B{{/b}}{{#c}}C{{/c}}<{{s}}>"
        let template = CompiledTemplate(mustache: try MustacheTemplate(string: source), source: source, capacity: 2)
        for round in 1...3 {
            for flags in [(true, false, false), (false, true, false), (false, false, true), (true, true, true)] {
                var context = TemplateObject()
                context.set("a", flags.0)
                context.set("b", flags.1)
                context.set("c", flags.2)
                context.set("s", "round \(round) & <\(flags)>")
                let reference = template.mustache.render(context.mustacheContext())
                Self.expectSameBytes(String(decoding: template.render(context), as: UTF8.self), reference, "\(round) \(flags)")
            }
        }
        #expect(template.shapeCounts.skeletons == 2 && template.shapeCounts.mustacheOnly == 0)
    }

    /// Marker output parses into text and slots; a marker cut short, malformed, or naming a slot that is not there
    /// makes no skeleton.
    @Test func markerOutputParsing() {
        let parsed = TemplateSkeleton(markedOutput: "<a>\u{E000}1&amp;\u{E001}|\u{E000}0&\u{E001}</a>", slotCount: 2)
        #expect(parsed?.pieces == [.text("<a>"), .escapedSlot(1), .text("|"), .rawSlot(0), .text("</a>")])
        #expect(parsed.map { String(decoding: $0.fill(["<r>", "<e>"]), as: UTF8.self) } == "<a>&lt;e&gt;|<r></a>")
        for broken in [
            "\u{E000}1&amp;", "\u{E000}1&amp;x\u{E001}", "\u{E000}&\u{E001}", "\u{E000}2&\u{E001}", "x\u{E001}",
            "\u{E000}01&\u{E001}", "\u{E000}1\u{E001}", "\u{E000}1&am\u{E001}", "\u{E000}", "\u{E000}1",
        ] {
            #expect(TemplateSkeleton(markedOutput: broken, slotCount: 2) == nil, "\(broken.debugDescription)")
        }
    }

    /// Our escaping is Mustache's: over every ASCII character, each alone and all together, and non-ASCII strings
    /// where a special character is joined by a mark or preceded by a prepended one.
    @Test func escapingMatchesMustache() throws {
        let escaped = try MustacheTemplate(string: "{{x}}")
        let raw = try MustacheTemplate(string: "{{{x}}}")
        var samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        samples.append(String((0..<128).map { Character(UnicodeScalar(UInt8($0))) }))
        for special in ["<", ">", "&", "\"", "'"] {
            for mark in ["\u{301}", "\u{338}", "\u{200D}", "\u{FE0F}", "\u{903}", "\u{1F3FD}", "é", "\r\n"] {
                samples += [special + mark, mark + special, "a" + special + mark + special]
            }
            for prepend in ["\u{600}", "\u{605}", "\u{110BD}", "\u{E000}", "🇩🇪"] { samples.append(prepend + special + "x") }
        }
        samples += ["Grüße & <日本語>", "🧘‍♀️ & 👍🏽 \"'", "\u{E000}0&\u{E001}", "a\r\n&\n\t<"]
        for sample in samples {
            Self.expectSameBytes(HTMLEscaping.escaped(sample), escaped.render(["x": sample]), "escaped \(sample.debugDescription)")
            Self.expectSameBytes(sample, raw.render(["x": sample]), "raw \(sample.debugDescription)")
        }
    }

    /// Over every Unicode scalar, alone and after each special character, our escaping is Mustache's loop
    /// (`mustacheHTMLEscape`, its code copied here: it is internal to the package).
    @Test func escapingMatchesMustacheOverEveryScalar() {
        var mismatches: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(scalar), "&" + String(scalar), "<" + String(scalar) + ">"]
            where !Array(HTMLEscaping.escaped(text).utf8).elementsEqual(Self.mustacheHTMLEscape(text).utf8) {
                mismatches.append(text.debugDescription)
            }
            if mismatches.count > 10 { break }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    /// Strings are scanned eight bytes at a time: each special character, and a non-ASCII one, at every place of
    /// strings of every length up to 40, alone and two together.
    @Test func escapingMatchesMustacheAtEveryOffset() {
        var mismatches: [String] = []
        for length in 0..<40 {
            let filler = Array(repeating: "a", count: length)
            if HTMLEscaping.escaped(filler.joined()) != filler.joined() { mismatches.append("filler \(length)") }
            for place in 0..<max(length, 1) {
                for insert in ["<", ">", "&", "\"", "'", "é", "\u{301}", "🧘"] {
                    for second in [nil, "&", "é"] as [String?] {
                        var characters = filler
                        if place < characters.count { characters[place] = insert } else { characters.append(insert) }
                        if let second { characters.append(second) }
                        let text = characters.joined()
                        if !Array(HTMLEscaping.escaped(text).utf8).elementsEqual(Self.mustacheHTMLEscape(text).utf8) {
                            mismatches.append(text.debugDescription)
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    private static let mustacheEscapes: [Character: String] = ["<": "&lt;", ">": "&gt;", "&": "&amp;", "\"": "&quot;", "'": "&#39;"]

    /// swift-mustache 2.1's `String.htmlEscape`, as written there.
    static func mustacheHTMLEscape(_ text: String) -> String {
        var newString = ""
        newString.reserveCapacity(text.count)
        for c in text {
            if let replacement = mustacheEscapes[c] {
                newString += replacement
            } else {
                newString.append(c)
            }
        }
        return newString
    }

    /// A renderer whose `app` has `source` as its landing template.
    static func renderer(overriding source: String, for app: String) throws -> (PageRenderer, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("linkd-compiled-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(source.utf8).write(to: directory.appendingPathComponent("landing.mustache"))
        let renderer = try PageRenderer(configuration: PageConfiguration(directory: Fixtures.templatesDirectory, appDirectories: [app: directory.path]))
        return (renderer, directory)
    }
}

/// The landing page's Mustache context as `PageRenderer` built it before compiled skeletons: the reference the
/// compiled pages are held to.
enum ReferenceLanding {
    static func context(_ page: LandingPage, client: UserAgentKind, renderer: PageRenderer) -> [String: Any] {
        let app = page.app
        var context: [String: Any] = [
            "lang": app.language,
            "appName": app.displayName,
            "shareURL": page.shareURL,
            "openURL": page.openInAppURL,
            "isIOS": client == .iOS,
            "isAndroid": client == .android,
            "isDesktop": client == .desktop,
            "isCrawler": client == .crawler,
        ]
        let title = page.preview.map { String($0.title.prefix(300)) } ?? page.title ?? "Shared from \(app.displayName)"
        context["title"] = title
        if let preview = page.preview {
            var item: [String: Any] = ["title": title]
            if preview.allowCreatorName, let creator = preview.creatorName, !creator.isEmpty {
                item["creator"] = String(creator.prefix(100))
            }
            if let updated = preview.updatedAt { item["updated"] = PageRenderer.dayText(updated) }
            if let image = preview.imageURL, PageURL.isHTTPS(image) {
                item["imageURL"] = image
                context["imageURL"] = image
            }
            let badges = PageRenderer.badgeTexts(preview.badges, app: app)
            if !badges.isEmpty {
                item["hasBadges"] = true
                item["badges"] = badges.map { ["id": $0.id, "text": $0.text] }
            }
            context["preview"] = item
            context["description"] = item["creator"].map { "Shared by \($0) on \(app.displayName)" }
                ?? "Open it in \(app.displayName)"
        } else {
            context["description"] = "Open it in \(app.displayName)"
        }
        if let id = app.appStoreID {
            context["appStoreID"] = id
            context["appStoreURL"] = page.installBaseURL.map { $0 + "/ios" } ?? app.appStoreURL
            context["smartBanner"] = "app-id=\(id), app-argument=\(page.shareURL)"
        }
        if let package = app.androidPackage {
            context["androidPackage"] = package
            context["playStoreURL"] = page.installBaseURL.map { $0 + "/android" } ?? app.playStoreURL
        }
        if let customURL = page.customSchemeURL { context["appLinkURL"] = customURL }
        if client == .android, let intent = renderer.androidIntentURL(page) { context["openURL"] = intent }
        if client == .desktop, let path = page.qrImagePath {
            context["qrImage"] = path
        } else if client == .desktop, let svg = renderer.qrCodes.svg(for: page.shareURL, moduleSize: 4) {
            context["qrSVG"] = svg
        }
        return context
    }
}
