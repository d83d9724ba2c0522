import Foundation
import FuzzSupport
import LinkRouter

/// `ManifestLoader.parse(yaml:file:)` (Yams's composer, the typed `YAMLReader`, every manifest check) on any UTF-8
/// text.
///
/// Invariants: any text gives a manifest or `ManifestErrors` — at least one error, each with a message, a hint and
/// a mark inside the text (never a trap; time and memory are bounded by libFuzzer's `-timeout` and `-rss_limit_mb`);
/// a manifest that loads compiles into a `Router`, which resolves the app's scheme and host roots with
/// `jsonBytes()` equal to `JSONEncoder`'s.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let text = Fuzz.text(UnsafeRawBufferPointer(start: data, count: size)) else { return 0 }
    // YAML breaks lines at LF, CR, NEL, LS and PS (CR LF is one break; counting it as two keeps this an upper bound);
    // libyaml puts the end of the input on the line after the last one when the text does not end with a break.
    let lines = text.unicodeScalars.reduce(1) { $0 + (["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains($1) ? 1 : 0) }
    let manifest: AppManifest
    do {
        manifest = try ManifestLoader.parse(yaml: text, file: "fuzz.yaml")
    } catch {
        Fuzz.require(!error.errors.isEmpty, "ManifestErrors without an error")
        for problem in error.errors {
            Fuzz.require(!problem.message.isEmpty && !problem.hint.isEmpty, "an error without a message or hint: \(problem)")
            Fuzz.require(problem.mark.file == "fuzz.yaml" && (1...lines + 1).contains(problem.mark.line) && problem.mark.column >= 1,
                         "an error outside the text (\(lines) lines): \(problem)")
        }
        return 0
    }
    let router: Router
    do {
        router = try Router(manifests: [manifest])
    } catch {
        Fuzz.require(false, "a manifest that loads does not compile: \(error)")
        return 0
    }
    let urls = manifest.schemes.map { "\($0)://" } + manifest.hosts.map { "https://\($0)/" }
    for url in urls.prefix(8) {
        for state in [nil] + manifest.states.prefix(4).map(Optional.some) {
            let resolution = router.resolve(url: url, state: state)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Fuzz.require((try? encoder.encode(resolution)).map(Array.init) == resolution.jsonBytes(),
                         "jsonBytes differs from JSONEncoder for \(url): \(resolution)")
        }
    }
    return 0
}
