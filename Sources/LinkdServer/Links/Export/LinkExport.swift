import Foundation
import Hummingbird
import LinkdHTTP
import LinkStore
import Logging
import NIOCore
import Synchronization

/// `GET /v1/links/export`: every link of an app, streamed a keyset page at a time.
extension LinkService {
    /// The sizes of an export.
    enum ExportCaps {
        /// Links read per store page (one listing statement each, `LinkListSQL`), and written as one chunk of the
        /// body: about 190 KB of CSV or 315 KB of NDJSON (docs/benchmarks.md), the most an export holds at once
        /// beside what the socket buffers.
        static let pageSize = 500
        /// Exports running at once on one instance; one more is answered 429 (`LinkExportGate`).
        static let concurrentExports = 4
    }

    /// What an export wrote, for its log line.
    struct ExportSummary: Sendable {
        let links: Int
        let bytes: Int
        let pages: Int
    }

    /// The body of an export of `app`'s links in `format`: every link, newest first (the listing's order), read a page
    /// of `pageSize` at a time by its keyset position and written as one chunk per page, each write waiting until the
    /// connection takes it (a slow reader slows the reads; the edge's write deadline closes one that stops reading).
    /// Statuses are judged and token URLs signed at `now`; clicks not yet flushed are counted, as the inspector
    /// counts them. The export is not a snapshot: each page is read when it is reached, so a link revoked meanwhile
    /// may show either status, and a link made after the export began (newer than its first page) is not in it.
    /// A store failure after the first bytes ends the body with an error: the connection closes without the final
    /// chunk, so a client sees a broken transfer, never a short file that looks whole.
    func exportBody(
        app: String, format: LinkExportFormat, now: Date, pageSize: Int = ExportCaps.pageSize,
        finished: @escaping @Sendable (Result<ExportSummary, any Error>) -> Void
    ) -> ResponseBody {
        let router = self.router
        let signer = TokenURLSigner(keyring: keys.keyring, now: now)
        let store = self.store
        let events = self.events
        return ResponseBody { writer in
            var summary = (links: 0, bytes: 0, pages: 0)
            do {
                if format == .csv {
                    let header = ByteBuffer(string: LinkExportRecord.csvHeader)
                    summary.bytes += header.readableBytes
                    try await writer.write(header)
                }
                var after: LinkPosition?
                repeat {
                    let query = LinkListQuery(app: app, after: after, limit: pageSize, now: now)
                    let page = try await Self.storing { try await events.counted { try await store.listLinks(query) } }
                    var text = ""
                    text.reserveCapacity(page.count * 512)
                    for link in page {
                        let record = LinkExportRecord(link, now: now, router: router, signer: signer)
                        text += format == .csv ? record.csvRow() : record.ndjsonLine()
                    }
                    if !page.isEmpty {
                        let chunk = ByteBuffer(string: text)
                        summary.links += page.count
                        summary.bytes += chunk.readableBytes
                        summary.pages += 1
                        try await writer.write(chunk)
                    }
                    after = page.count == pageSize ? page.last.map { LinkPosition(of: $0.record) } : nil
                } while after != nil
                try await writer.finish(nil)
            } catch {
                finished(.failure(error))
                throw error
            }
            finished(.success(ExportSummary(links: summary.links, bytes: summary.bytes, pages: summary.pages)))
        }
    }
}

/// How many exports run at once: a slot is taken before an export answers and given back when its body is done
/// with — written, failed, or dropped unwritten (the slot's `deinit`), so a connection that closes before the body
/// starts cannot keep one.
final class LinkExportGate: Sendable {
    private let running = Mutex(0)
    let limit: Int

    init(limit: Int = LinkService.ExportCaps.concurrentExports) {
        self.limit = limit
    }

    /// A slot, or nil when `limit` exports are running.
    func enter() -> Slot? {
        let entered = running.withLock { running -> Bool in
            guard running < limit else { return false }
            running += 1
            return true
        }
        return entered ? Slot(gate: self) : nil
    }

    /// Exports running now.
    var count: Int { running.withLock { $0 } }

    fileprivate func leave() {
        running.withLock { $0 -= 1 }
    }

    /// One running export; the slot is given back when the last reference goes.
    final class Slot: Sendable {
        private let gate: LinkExportGate
        fileprivate init(gate: LinkExportGate) { self.gate = gate }
        deinit { gate.leave() }
    }
}
