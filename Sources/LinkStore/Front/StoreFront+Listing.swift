extension StoreFront {
    /// The links that match `query`, newest first, with their stored clicks (straight from the database: a listing
    /// neither reads nor fills the record cache).
    public func listLinks(_ query: LinkListQuery) async throws -> [ListedLink] {
        try await backend.listLinks(query)
    }
}
