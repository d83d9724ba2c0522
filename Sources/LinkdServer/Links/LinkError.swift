import LinkdHTTP

/// Why a link operation failed, in the link service's own terms (no HTTP here): the routes' error middleware maps
/// each code to its API answer in one place (`APIError.init(_: LinkError)`).
struct LinkError: Error, Sendable, CustomStringConvertible {
    /// The machine code of a link failure.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case invalid, unknownRoute, notShareable, badParams, notFound, conflict, pathTaken, storeUnavailable }
        private let value: Value
        /// The code's name.
        var description: String { value.rawValue }

        /// A field of the request is out of its range (caps, lifetime, suite) or the app cannot share.
        static let invalid = Code(value: .invalid)
        /// The app has no such route.
        static let unknownRoute = Code(value: .unknownRoute)
        /// The route cannot be the target of a share link.
        static let notShareable = Code(value: .notShareable)
        /// A param is missing, unknown or of the wrong type for the route.
        static let badParams = Code(value: .badParams)
        /// No such link (or one the caller may not see).
        static let notFound = Code(value: .notFound)
        /// The state forbids it: the link id exists, or the app's key cannot sign.
        static let conflict = Code(value: .conflict)
        /// The custom path is not the new link's to take: a route, linkd itself or another link holds it.
        static let pathTaken = Code(value: .pathTaken)
        /// The store failed to read or write; retry later.
        static let storeUnavailable = Code(value: .storeUnavailable)
    }

    /// What failed.
    let code: Code
    /// What to tell the caller.
    let message: String
    /// What holds the path of a `pathTaken` failure.
    let holder: LinkService.PathHolder?

    /// A failure of `code` saying `message`.
    init(_ code: Code, _ message: String, holder: LinkService.PathHolder? = nil) {
        self.code = code
        self.message = message
        self.holder = holder
    }

    /// `code: message`.
    var description: String { "\(code): \(message)" }
}
