// WebFallback: what a person sees when they follow a share link without the app.
//
// - Pages/   `PageRenderer` renders the landing page (200) and the unavailable page (410 gone / 404 unknown, same
//            body) from Mustache templates in `templates/` (overridable per app), for a `UserAgentKind`;
//            `SecurityHeaders` are the headers to send with them.
// - QR/      `QRCode.encode(_:)` + `svg(moduleSize:)`: our own QR encoder (byte mode, level M, versions 1–10).
// - Origin/  `OriginClient.preview(params:)`: previews over libcurl on its own threads, with a bounded cache.
//            The requests go through `OutboundHTTP`, linkd's one libcurl client.
