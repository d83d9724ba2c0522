import Foundation
import GRDB

extension SQLiteBackend {
    /// The links that match `query`, newest first, with their stored clicks (`LinkListSQL`: one statement, its
    /// order served by the `links_*_created` indexes).
    public func listLinks(_ query: LinkListQuery) async throws -> [ListedLink] {
        let statement = LinkListSQL(query, placeholder: { _ in "?" })
        let arguments = StatementArguments(statement.values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .text(let text): text
            case .date(let date): StoredDate.text(date)
            case .createdPosition(let microseconds): StoredDate.text(Date(timeIntervalSince1970: Double(microseconds) / 1_000_000))
            case .integer(let number): number
            }
        })
        let sql = statement.sql
        return try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.listedLink)
        }
    }

    /// A row of `LinkListSQL.columns`.
    private static func listedLink(_ row: Row) throws -> ListedLink {
        let id: String = row[0]
        guard let created = StoredDate.date(row[6]), let expires = StoredDate.date(row[7]) else {
            throw LinkStoreError(.storage, "link \(id) has an unreadable date")
        }
        let statusText: String = row[9]
        guard let status = LinkRecordStatus(rawValue: statusText) else {
            throw LinkStoreError(.storage, "link \(id) has an unknown status \(statusText)")
        }
        let params = try LinkParamsText.decode(row[3], id: id)
        let record = LinkRecord(
            id: id, app: row[1], route: row[2], params: params, owner: row[4], title: row[5], created: created,
            expires: expires, generation: row[8], status: status, campaign: (row[12] as String?).flatMap(Campaign.init(label:)),
            shortID: row[13], path: row[14])
        return ListedLink(record: record, clicks: LinkClicks(count: row[10], lastOpened: StoredDate.date(row[11])))
    }
}
