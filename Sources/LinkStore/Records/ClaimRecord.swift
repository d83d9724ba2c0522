public import Foundation

/// A live claim code of a deferred deep link, as stored: the code's lookup key (never the code), the link it
/// hands over, the share token sealed under the code, and when it stops being claimable.
public struct ClaimRecord: Sendable, Equatable {
    /// `ClaimCode.lookupKey`: SHA-256 of the code under a domain prefix.
    public var lookupKey: Data
    /// The link (hex id).
    public var linkID: String
    /// The link's app.
    public var app: String
    /// `ios` or `android`: which store redirect made it.
    public var platform: String
    /// The link's share token, sealed under the code (`ClaimCode.seal`).
    public var sealedToken: Data
    /// When it was made.
    public var created: Date
    /// When it stops being claimable (then it is counted as expired and deleted).
    public var expires: Date

    /// - Parameters: see the properties.
    public init(lookupKey: Data, linkID: String, app: String, platform: String, sealedToken: Data, created: Date, expires: Date) {
        self.lookupKey = lookupKey
        self.linkID = linkID
        self.app = app
        self.platform = platform
        self.sealedToken = sealedToken
        self.created = created
        self.expires = expires
    }
}
