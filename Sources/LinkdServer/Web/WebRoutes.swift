import HTTPTypes
import Hummingbird
import LinkdHTTP
import LinkRouter
import WebFallback

/// The files browsers and operating systems fetch from the link hosts:
/// - `GET /.well-known/apple-app-site-association` and `GET /.well-known/assetlinks.json` for the request's `Host`
///   (200 `application/json`, never a redirect; 404 for a host no manifest names); on a share host whose links hold
///   custom paths, with those paths (`CustomPathFiles`);
/// - `GET /static/linkd.css`, the pages' stylesheet.
struct WebRoutes: Sendable {
    /// The apps in force: their well-known files.
    let apps: AppsInForce
    let stylesheet: String
    /// The files of share hosts with custom paths.
    let customPaths: CustomPathFiles

    func register(on router: some RouterMethods<LinkdRequestContext>) {
        router.get(".well-known/apple-app-site-association") { request, _ in
            let snapshot = apps.snapshot
            let host = Authority.hostname(request.head.authority ?? "")
            guard let known = snapshot.wellKnown.appleAppSiteAssociation(host: host) else { return try Self.json(nil) }
            return try Self.json(await customPaths.files(host: host, snapshot: snapshot)?.appleAppSiteAssociation ?? known)
        }
        router.get(".well-known/assetlinks.json") { request, _ in
            let snapshot = apps.snapshot
            let host = Authority.hostname(request.head.authority ?? "")
            guard let known = snapshot.wellKnown.assetLinks(host: host) else { return try Self.json(nil) }
            return try Self.json(await customPaths.files(host: host, snapshot: snapshot)?.assetLinks ?? known)
        }
        router.get("static/linkd.css") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600", .init("X-Content-Type-Options")!: "nosniff"],
                body: .init(byteBuffer: ByteBuffer(string: stylesheet)))
        }
    }

    private static func json(_ bytes: [UInt8]?) throws -> Response {
        guard let bytes else { throw APIError(.notFound, .notFound, "no app is served on this host") }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
