internal import Yams

/// Where previews come from: `origin`.
extension ManifestParser {
    /// `origin`: the https base URL and the preview path template (starting with `/`); nil without an `origin` section.
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
        }
        return AppManifest.Origin(baseURL: base, previewPath: path)
    }
}
