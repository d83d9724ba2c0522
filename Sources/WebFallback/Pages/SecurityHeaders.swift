/// The headers every web-fallback page is sent with. No script runs on these pages: the CSP allows none.
public enum SecurityHeaders {
    /// The Content-Security-Policy: nothing but same-origin or https images and the page's own stylesheet
    /// (served at `/static/linkd.css`), no script, no framing.
    public static let contentSecurityPolicy =
        "default-src 'none'; img-src 'self' data: https:; style-src 'self'; base-uri 'none'; form-action 'none'; "
        + "frame-ancestors 'none'"

    /// The security headers, for HTML pages.
    public static let page: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Permissions-Policy", "camera=(), microphone=(), geolocation=()"),
        ("Cache-Control", "no-store"),
    ]

    /// The security headers of the iOS claim page: the pages' own, with one addition to the policy, `script-src
    /// 'self'`, so that `/static/claim.js` (and no inline script, no other origin) may run its copy button.
    public static let claimPage: [(name: String, value: String)] = page.map { header in
        header.name == "Content-Security-Policy" ? (header.name, contentSecurityPolicy + "; script-src 'self'") : header
    }

    /// The Content-Security-Policy of the admin console: the pages' policy, but forms may post to the console's own
    /// origin (`form-action 'self'`) and images are the console's own only.
    public static let consoleContentSecurityPolicy =
        "default-src 'none'; img-src 'self'; style-src 'self'; base-uri 'none'; form-action 'self'; "
        + "frame-ancestors 'none'"

    /// The security headers of the admin console's pages: the pages' set with the console's CSP, and
    /// `Referrer-Policy: same-origin` rather than `no-referrer` (which makes a browser send `Origin: null` with a
    /// same-origin form post, and the console checks `Origin`); no referrer still leaves for another site.
    public static let console: [(name: String, value: String)] =
        [("Content-Security-Policy", consoleContentSecurityPolicy), ("Referrer-Policy", "same-origin")]
        + page.filter { $0.name != "Content-Security-Policy" && $0.name != "Referrer-Policy" }

    /// Headers for the QR SVG (`image/svg+xml`, no script possible inside, never cached: revocation bites).
    public static let svg: [(name: String, value: String)] = [
        ("Content-Type", "image/svg+xml"),
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Cache-Control", "no-store"),
    ]
}
