internal import Yams

/// Where previews come from: `origin`.
extension ManifestParser {
    /// `origin`: the https base URL and the preview path template (starting with `/`, no empty, `.` or `..`
    /// segment); nil without an `origin` section.
    func parseOrigin(_ originNode: Node?) -> AppManifest.Origin? {
        guard let originNode else { return nil }
        let fields = reader.mapping(originNode, context: "origin", allowed: ["baseURL", "previewPath"], required: ["baseURL", "previewPath"])
        let base = reader.string(fields["baseURL"], context: "origin.baseURL") ?? ""
        let path = reader.string(fields["previewPath"], context: "origin.previewPath") ?? ""
        if !base.isEmpty, !OriginBaseURL.isAllowed(base) {
            reader.fail(.badValue, fields["baseURL"], "origin.baseURL '\(base)' is not https",
                        hint: "use an https URL (plain http only to a loopback host: localhost, 127.0.0.0/8 or [::1])")
        }
        if !path.isEmpty, !path.hasPrefix("/") {
            reader.fail(.badValue, fields["previewPath"], "origin.previewPath must start with '/'", hint: "write '/\(path)'")
        } else if Self.hasBadSegment(previewPath: path) {
            reader.fail(.badValue, fields["previewPath"], "origin.previewPath '\(path)' has an empty, '.' or '..' segment",
                        hint: "write the path the origin serves previews at, segment by segment")
        }
        return AppManifest.Origin(baseURL: base, previewPath: path)
    }

    /// Whether a preview path (`/…`, a trailing `/` allowed) has an empty, `.` or `..` segment.
    static func hasBadSegment(previewPath path: String) -> Bool {
        var segments = path.dropFirst()
        if segments.hasSuffix("/") { segments = segments.dropLast() }
        guard !segments.isEmpty else { return false }
        return segments.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || DotSegment.matches($0) }
    }
}
