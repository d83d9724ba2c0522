import Foundation
import HTTPTypes
import Hummingbird
import LinkdHTTP
import NIOCore
import LinkRouter
import LinkStore
import Logging
import TokenSigning
import UTCTime
import WebFallback

/// The admin console at `/admin`: server-rendered pages over `AdminService` (the admin API's actions, not a copy).
///
/// Every page but sign-in needs a live session (`ConsoleSessions`); without one a request is sent to
/// `/admin/sign-in` (303). Every form carries the session's CSRF token, and every `POST` is refused (403) unless the
/// token matches and the request comes from the console's own origin. Destructive actions (rotate, retire, revoke,
/// disable user, revoke an API key) are a `GET` of a confirmation page that says what will stop working, then a
/// `POST` of its form; after a change the browser is redirected (303) to a page that shows the result, so a reload
/// never repeats it. Errors are HTML pages with the API's status and message, never JSON.
struct ConsoleRoutes: Sendable {
    let admin: AdminService
    let auth: APIKeyAuthenticator
    let sessions: ConsoleSessions
    let pages: ConsolePages

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        router.get("admin") { request, context in try await page(request, context) { try await overview($0) } }
        let console = router.group("admin")
        console.get("console.css") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "no-cache", HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                body: .init(byteBuffer: ByteBuffer(string: pages.stylesheet)))
        }
        console.get("sign-in") { request, _ in signInPage(request) }
        console.post("sign-in") { request, context in try await signIn(request, context) }
        console.post("sign-out") { request, context in
            try await action(request, context) { session, _ in
                try await sessions.end(session)
                context.logger.logAdminAction(.consoleSignOut, actor: session.caller.keyID, [:])
                var response = Self.redirect("/admin/sign-in")
                response.headers[values: .setCookie] = [Self.expiredCookie(ConsoleSessions.cookieName, request)]
                return response
            }
        }
        console.get("keys") { request, context in try await page(request, context) { try keysPage($0, request) } }
        console.get("keys/{app}/rotate") { request, context in
            try await page(request, context) { try confirmRotate($0, request, context) }
        }
        console.post("keys/{app}/rotate") { request, context in
            try await action(request, context) { session, form in
                let app = try context.parameters.require("app")
                let key = try await admin.rotate(app: app, suiteName: form["suite"], by: session.caller, logger: context.logger)
                return Self.redirect("/admin/keys?notice=rotated&app=\(Self.query(app))&kid=\(key.kid)")
            }
        }
        console.get("keys/{app}/{kid}/retire") { request, context in
            try await page(request, context) { try confirmRetire($0, context) }
        }
        console.post("keys/{app}/{kid}/retire") { request, context in
            try await action(request, context) { session, _ in
                let app = try context.parameters.require("app")
                let key = try await admin.retire(
                    app: app, kid: context.parameters.get("kid").flatMap(UInt32.init), by: session.caller, logger: context.logger)
                return Self.redirect("/admin/keys?notice=retired&app=\(Self.query(app))&kid=\(key.kid)")
            }
        }
        console.get("apps") { request, context in try await page(request, context) { try await appsPage($0) } }
        console.post("apps/{app}/check") { request, context in
            try await action(request, context) { session, form in try await manifestCheck(session, form, context) }
        }
        console.get("links") { request, context in try await page(request, context) { try await linksPage($0, request) } }
        console.get("links/{id}") { request, context in try await page(request, context) { try await linkPage($0, request, context) } }
        console.get("links/{id}/revoke") { request, context in
            try await page(request, context) { try await confirmRevokeLink($0, context) }
        }
        console.post("links/{id}/revoke") { request, context in
            try await action(request, context) { session, _ in
                let link = try await admin.revokeLink(id: try context.parameters.require("id"), by: session.caller, logger: context.logger)
                return Self.redirect("/admin/links/\(link.id)?notice=revoked")
            }
        }
        console.get("owners/revoke") { request, context in
            try await page(request, context) { try await confirmRevokeOwner($0, request) }
        }
        console.post("owners/revoke") { request, context in
            try await action(request, context) { session, form in
                let app = form["app"] ?? "", owner = form["owner"] ?? ""
                let count = try await admin.revokeOwner(app: app, owner: owner, by: session.caller, logger: context.logger)
                return Self.redirect("/admin/links?app=\(Self.query(app))&owner=\(Self.query(owner))&notice=owner-revoked&count=\(count)")
            }
        }
        console.get("api-keys") { request, context in try await page(request, context) { try await apiKeysPage($0, request) } }
        console.post("api-keys") { request, context in
            try await action(request, context) { session, form in
                let app = form["app"].flatMap { $0.isEmpty ? nil : $0 }
                let (record, secret) = try await admin.createAPIKey(
                    kindName: form["kind"] ?? "", app: app, label: form["label"] ?? "", by: session.caller, logger: context.logger)
                // The secret is on this page only: never in a URL, a redirect or the store.
                return render("api-key-created", session, nav: "api-keys", title: "API key created", [
                    "id": record.id, "kind": record.kind.rawValue, "app": record.app ?? "", "label": record.label, "secret": secret,
                ], status: .created)
            }
        }
        console.get("api-keys/{id}/revoke") { request, context in
            try await page(request, context) { try await confirmRevokeAPIKey($0, context) }
        }
        console.post("api-keys/{id}/revoke") { request, context in
            try await action(request, context) { session, _ in
                let record = try await admin.revokeAPIKey(id: try context.parameters.require("id"), by: session.caller, logger: context.logger)
                return Self.redirect("/admin/api-keys?notice=revoked&id=\(Self.query(record.id))")
            }
        }
        console.get("audit") { request, context in try await page(request, context) { try await auditPage($0, request) } }
        console.get("apps/{app}/stats") { request, context in
            try await page(request, context) { try await appStatsPage($0, request, context) }
        }
        console.get("links/{id}/stats") { request, context in
            try await page(request, context) { try await linkStatsPage($0, request, context) }
        }
        registerWebhooks(on: console)
    }

    // MARK: Sessions

    /// A page for a signed-in admin; without a live session, 303 to sign-in (clearing a dead cookie).
    func page(
        _ request: Request, _ context: LinkdRequestContext, _ body: (ConsoleSessions.Session) async throws -> Response
    ) async throws -> Response {
        var session: ConsoleSessions.Session?
        do {
            let cookie = ConsoleRequest.cookie(ConsoleSessions.cookieName, in: request)
            session = try await cookie.asyncFlatMap { try await sessions.current(id: $0) }
            guard let session else { return signInRedirect(request, hadCookie: cookie != nil) }
            return try await body(session)
        } catch {
            return errorPage(error, session, context)
        }
    }

    /// A form post of a signed-in admin: a live session (else 303 to sign-in), the console's own origin and the
    /// session's CSRF token (else 403), then `body` with the form's fields.
    func action(
        _ request: Request, _ context: LinkdRequestContext,
        _ body: (ConsoleSessions.Session, [String: String]) async throws -> Response
    ) async throws -> Response {
        var session: ConsoleSessions.Session?
        do {
            let cookie = ConsoleRequest.cookie(ConsoleSessions.cookieName, in: request)
            session = try await cookie.asyncFlatMap { try await sessions.current(id: $0) }
            guard let session else { return signInRedirect(request, hadCookie: cookie != nil) }
            guard ConsoleRequest.isSameOrigin(request) else {
                throw APIError(.forbidden, .forbidden, "this form was not sent from the console's own pages")
            }
            let form = try await ConsoleRequest.form(request)
            guard ConsoleSessions.tokensMatch(form["csrf"], session.csrfToken) else {
                throw APIError(.forbidden, .forbidden, "the form's security token is missing or wrong: reload the page and try again")
            }
            return try await body(session, form)
        } catch {
            return errorPage(error, session, context)
        }
    }

    private func signInRedirect(_ request: Request, hadCookie: Bool) -> Response {
        var response = Self.redirect("/admin/sign-in")
        if hadCookie { response.headers[values: .setCookie] = [Self.expiredCookie(ConsoleSessions.cookieName, request)] }
        return response
    }

    /// `GET /admin/sign-in`: the form, with a fresh double-submit token in its own cookie.
    private func signInPage(_ request: Request, error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        var values: [String: Any] = ["csrf": token]
        if let error { values["error"] = error }
        var response = render("sign-in", nil, nav: "", title: "Sign in", values, status: status)
        response.headers[values: .setCookie] = [Self.cookie(ConsoleSessions.signInCookieName, token, request, maxAge: 3600)]
        return response
    }

    /// `POST /admin/sign-in` `key, csrf`: checks the key through the API's authenticator (its lockout and failure
    /// limits apply), opens a session and sets its cookie. The key itself is never kept: not in the cookie, the
    /// store, the page or the log.
    private func signIn(_ request: Request, _ context: LinkdRequestContext) async throws -> Response {
        do {
            guard ConsoleRequest.isSameOrigin(request) else {
                throw APIError(.forbidden, .forbidden, "this form was not sent from the console's own pages")
            }
            let form = try await ConsoleRequest.form(request)
            guard let expected = ConsoleRequest.cookie(ConsoleSessions.signInCookieName, in: request),
                  ConsoleSessions.tokensMatch(form["csrf"], expected)
            else {
                return signInPage(request, error: "The sign-in form expired. Please try again.", status: .forbidden)
            }
            let caller: Caller
            do {
                caller = try await auth.authenticate(secret: (form["key"] ?? "").trimmingCharacters(in: .whitespaces), client: context.clientAddress)
            } catch let error as APIError where error.status == .unauthorized {
                return signInPage(request, error: "That key is unknown or revoked.", status: .unauthorized)
            } catch let error as APIError where error.status == .tooManyRequests {
                var response = signInPage(request, error: error.message, status: .tooManyRequests)
                if let seconds = error.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
                return response
            }
            guard caller.kind == .admin else {
                return signInPage(request, error: "That is a client key: the console needs an admin key.", status: .forbidden)
            }
            let (id, _) = try await LinkService.storing { try await sessions.open(for: caller) }
            context.logger.logAdminAction(.consoleSignIn, actor: caller.keyID, [:])
            var response = Self.redirect("/admin")
            response.headers[values: .setCookie] = [
                Self.cookie(ConsoleSessions.cookieName, id, request, maxAge: Int(sessions.maximum)),
                Self.expiredCookie(ConsoleSessions.signInCookieName, request),
            ]
            return response
        } catch {
            return errorPage(error, nil, context)
        }
    }

    // MARK: Rendering

    func confirm(
        _ session: ConsoleSessions.Session, title: String, consequences: [String], action: String, fields: [String: String],
        button: String, danger: Bool, cancel: String, count: Int? = nil
    ) -> Response {
        var values: [String: Any] = [
            "consequences": consequences, "action": action,
            "fields": fields.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] },
            "button": button, "danger": danger, "cancel": cancel,
        ]
        if let count { values["count"] = count }
        return render("confirm", session, nav: "", title: title, values)
    }

    /// A console page: `values` plus what every page shows (title, navigation, the signed-in key, the CSRF token).
    func render(
        _ name: String, _ session: ConsoleSessions.Session?, nav: String, title: String, _ values: [String: Any],
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var context = values
        context["title"] = title
        if let session {
            context["signedIn"] = true
            context["signedInAs"] = session.caller.keyID
            context["csrf"] = session.csrfToken
            context["nav"] = [
                ("overview", "Overview", "/admin"), ("apps", "Apps", "/admin/apps"), ("keys", "Signing keys", "/admin/keys"),
                ("links", "Links", "/admin/links"),
                ("webhooks", "Webhooks", "/admin/webhooks"), ("api-keys", "API keys", "/admin/api-keys"),
                ("audit", "Audit log", "/admin/audit"),
            ].map { ["label": $0.1, "href": $0.2, "current": $0.0 == nav] as [String: Any] }
        }
        let body = pages.render(name, context)
        var headers = HTTPFields()
        for (field, value) in ConsolePages.headers { headers.append(HTTPField(name: HTTPField.Name(field)!, value: value)) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// An error as a page: the API's status and message (a 5xx that is not the store's is logged, its detail kept).
    private func errorPage(_ error: any Error, _ session: ConsoleSessions.Session?, _ context: LinkdRequestContext) -> Response {
        let answer: APIError
        if let known = APIError.answering(error) {
            answer = known
        } else {
            context.logger.error("the admin console failed", metadata: ["error": "\(error)"])
            answer = .internalError
        }
        var response = render("message", session, nav: "", title: Self.errorTitle(answer.status), [
            "message": answer.message, "code": answer.code.description, "status": Int(answer.status.code),
        ], status: answer.status)
        if let seconds = answer.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    private static func errorTitle(_ status: HTTPResponse.Status) -> String {
        switch status.code {
        case 403: "Refused"
        case 404: "Not found"
        case 409: "Not possible now"
        case 429: "Too many attempts"
        case 500...: "Something went wrong"
        default: "That did not work"
        }
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A console cookie: `HttpOnly`, `SameSite=Strict`, `Path=/admin`, and `Secure` unless the request names a
    /// loopback host.
    static func cookie(_ name: String, _ value: String, _ request: Request, maxAge: Int) -> String {
        "\(name)=\(value); Path=/admin; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
            + (ConsoleRequest.isLoopbackHost(request) ? "" : "; Secure")
    }

    static func expiredCookie(_ name: String, _ request: Request) -> String {
        cookie(name, "", request, maxAge: 0)
    }

    /// `2026-11-25 14:03 UTC`.
    static func time(_ date: Date) -> String {
        "\(UTCDateTime(date).description.prefix(16)) UTC"
    }

    /// `value` for a query string.
    static func query(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    /// `value` for a path segment.
    static func path(_ value: String) -> String { query(value) }
}

extension Optional {
    /// `flatMap` with an async transform.
    fileprivate func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
