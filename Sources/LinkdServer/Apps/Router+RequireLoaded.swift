import LinkRouter

extension LinkRouter.Router {
    /// Throws `AdminError.notFound` (the API's `404 not_found`) unless `app` is a loaded app: the one check of an app
    /// named in an admin request (the admin API, the console, webhook endpoints).
    func requireLoaded(app: String) throws {
        guard manifest(app: app) != nil else { throw AdminError(.notFound, "no app \(app.prefix(64)) is loaded") }
    }
}
