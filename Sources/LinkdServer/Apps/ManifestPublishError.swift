import LinkdHTTP
import LinkRouter

/// Why a publish, a rollback or a retirement was refused: a domain error with a code, answered by the API's one map
/// (`APIError.answering`).
struct ManifestPublishError: Error, Sendable {
    /// What went wrong.
    enum Code: String, Sendable {
        /// The manifest does not validate, alone or beside the other apps (`problems`).
        case invalid
        /// The manifest names another app than the one it is published for.
        case appMismatch
        /// The manifest would strand live links (`impact`); the request said neither `moves` nor `force`.
        case strands
        /// A move names a route the new manifest lacks, or links that cannot open it.
        case badMoves
        /// The version in force is not the one the request was made from.
        case versionConflict
        /// No such app, or no such version of it.
        case notFound
        /// The app to retire still has live links (`impact`).
        case hasLiveLinks
    }

    /// What went wrong.
    let code: Code
    /// In words, for the answer and the log.
    let message: String
    /// Every problem of an invalid manifest.
    var problems: [ManifestError] = []
    /// The impact report of a refused publish or retirement.
    var impact: ManifestImpact?

    /// A move the new manifest cannot take.
    static func badMoves(_ message: String) -> ManifestPublishError { ManifestPublishError(code: .badMoves, message: message) }
}

/// One manifest problem as the API answers it (`error.details.problems`).
struct ManifestProblem: Encodable, Sendable {
    /// The file (or the name the API gave the published text: `<app>.yaml`).
    let file: String
    let line: Int
    let column: Int
    /// The problem's code (`unknownRoute`, `syntax`, …).
    let code: String
    let message: String
    let hint: String
    /// `file:line:column: message`, as `linkd manifest check` prints it.
    let text: String

    init(_ error: ManifestError) {
        file = error.mark.file
        line = error.mark.line
        column = error.mark.column
        code = error.code.description
        message = error.message
        hint = error.hint
        text = error.description
    }
}
