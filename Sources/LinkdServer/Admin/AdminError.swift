/// Why an admin action was refused or failed: a domain error with a code, answered through the one map
/// (`APIError.answering`; `Server/Errors/APIError+Mapping.swift`) by the admin API and the console alike.
struct AdminError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal or failure.
    enum Code: Sendable {
        /// A value out of range or of the wrong kind (422 `unprocessable`).
        case invalid
        /// A malformed request: a bad query value or cursor (400 `bad_request`).
        case badRequest
        /// No such key, app, endpoint (404 `not_found`).
        case notFound
        /// Not possible in the current state: retiring the active key, a cap reached (409 `conflict`).
        case conflict
        /// The store or the key operation failed; nothing changed (503 `store_unavailable`).
        case unavailable
        /// A bug or a broken secret: it has been logged (500 `internal_error`).
        case failed
    }

    /// The kind.
    let code: Code
    /// What happened, for the caller.
    let message: String

    /// An error of `code` saying `message`.
    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    var description: String { message }
}
