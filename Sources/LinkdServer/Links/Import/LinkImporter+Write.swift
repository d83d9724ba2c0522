import Foundation
import LinkStore

// The writes of an import, once the whole file is read and checked: the custom-path places first, then the rows in
// batches of `ImportCaps.batchSize`, one transaction each (`StoreFront.importLinks`).
extension LinkImporter {
    /// Writes the rows kept (with `dryRun`, runs the same statements and rolls each batch back) and completes the
    /// report. A store failure before the first batch throws (nothing is written); one during the batches stops
    /// there and says so in `report.stopped`: every row before that batch's first line is written, none after.
    mutating func write(dryRun: Bool) async throws -> ImportReport {
        var rows = self.rows
        try await refuseOverPathPlaces(&rows)
        var start = 0
        while start < rows.count {
            let batch = rows[start..<min(start + ImportCaps.batchSize, rows.count)]
            let outcomes: [ImportedLink]
            do {
                outcomes = try await links.store.importLinks(batch.map(\.record), dryRun: dryRun, at: now)
            } catch {
                let line = batch.first?.line ?? 0
                report.stopped = ImportReport.LineMessage(line: line, code: "store_unavailable", message:
                    "the store failed: no row from line \(line) on was written; the rows before it were, as counted. "
                    + "Import the same file again to complete it")
                break
            }
            for (row, outcome) in zip(batch, outcomes) { record(outcome, of: row) }
            start += ImportCaps.batchSize
        }
        report.refused.sort { $0.line < $1.line }
        report.notes.sort { $0.line < $1.line }
        return report
    }

    private mutating func record(_ outcome: ImportedLink, of row: ImportRow) {
        switch outcome {
        case .inserted(let shortID):
            report.imported += 1
            if row.givenShortID, shortID != row.record.shortID {
                report.note(row.line, "short_id_changed",
                    "short id \(row.record.shortID ?? "") is another link's here: this link's short URL is now /…/\(shortID ?? "")")
            }
        case .alreadyPresent:
            report.alreadyPresent += 1
        case .idTaken(let other):
            report.refuse(row.line, "id_taken", "link \(row.record.id) is stored for app \(other)")
        case .pathTaken(let taken):
            report.refuse(row.line, "path_taken", "path \(row.record.path ?? taken.path) is taken: link \(taken.linkID) holds it")
        }
    }

    /// Refuses the rows whose custom path would take the app past `LinkService.maxCustomPathsPerApp` live paths, in
    /// file order. A row stored already (an earlier run) holds its place: when the places do not suffice, the rows
    /// needing one are first looked for (a dry run of just them).
    private mutating func refuseOverPathPlaces(_ rows: inout [ImportRow]) async throws {
        let wanting = rows.indices.filter { rows[$0].takesPathPlace }
        guard !wanting.isEmpty else { return }
        var room = try await links.customPathRoom(app: app, manifest: manifest)
        guard wanting.count > room else { return }
        var present: Set<String> = []
        var start = 0
        while start < wanting.count {
            let batch = wanting[start..<min(start + ImportCaps.batchSize, wanting.count)].map { rows[$0].record }
            let outcomes = try await links.store.importLinks(batch, dryRun: true, at: now)
            for (record, outcome) in zip(batch, outcomes) where outcome == .alreadyPresent { present.insert(record.id) }
            start += ImportCaps.batchSize
        }
        var refused: Set<Int> = []
        for index in wanting where !present.contains(rows[index].record.id) {
            if room > 0 {
                room -= 1
                continue
            }
            refused.insert(index)
            report.refuse(rows[index].line, "path_limit",
                "app \(app) may hold at most \(LinkService.maxCustomPathsPerApp) live custom paths: no place is left for \(rows[index].record.path ?? "")")
        }
        rows = rows.enumerated().filter { !refused.contains($0.offset) }.map(\.element)
    }
}
