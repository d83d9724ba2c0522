import Foundation
import PostgresNIO

extension PostgresBackend {
    /// The links that match `query`, newest first, with their stored clicks (`LinkListSQL`: one statement, its
    /// order served by the `links_*_created` indexes). A position's time is built from integer microseconds in SQL,
    /// so the next page starts exactly after the last row of the one before.
    public func listLinks(_ query: LinkListQuery) async throws -> [ListedLink] {
        let statement = LinkListSQL(
            query, placeholder: { "$\($0)" }, positionTime: { "(TIMESTAMPTZ 'epoch' + \($0)::bigint * INTERVAL '1 microsecond')" })
        var binds = PostgresBindings(capacity: statement.values.count)
        for value in statement.values {
            switch value {
            case .text(let text): binds.append(text)
            case .date(let date): binds.append(date)
            case .createdPosition(let microseconds), .integer(let microseconds): binds.append(microseconds)
            }
        }
        let sql = PostgresQuery(unsafeSQL: statement.sql, binds: binds)
        return try await run("list links") { [client] in
            var links: [ListedLink] = []
            for try await row in try await client.query(sql) {
                let (id, app, route, params, owner, title, created, expires, generation, status, count, lastOpened, campaign, shortID, path) = try row.decode(
                    (String, String, String, String, String?, String?, Date, Date, Int64, String, Int64, Date?, String?, String?, String?).self)
                guard let status = LinkRecordStatus(rawValue: status) else {
                    throw LinkStoreError(.storage, "link \(id) has an unknown status \(status)")
                }
                let record = LinkRecord(
                    id: id, app: app, route: route, params: try LinkParamsText.decode(params, id: id), owner: owner, title: title,
                    created: created, expires: expires, generation: Int(generation), status: status,
                    campaign: campaign.flatMap(Campaign.init(label:)), shortID: shortID, path: path)
                links.append(ListedLink(record: record, clicks: LinkClicks(count: Int(count), lastOpened: lastOpened)))
            }
            return links
        }
    }
}
