import CSVRecords
import Foundation
import FuzzSupport

/// `CSVReader`, the reader of every import file, on any bytes (small caps, so that the fuzzer reaches them).
///
/// Invariants: the file read in one piece and read in two pieces split anywhere give the same records, or the same
/// error on the same line (an upload arrives in pieces of any size); no record has more fields than the cap, a field
/// longer than the cap, or a line before the one of the record before it; and the records, written back as CSV with
/// every field quoted, read again to the same fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: size))
    let caps = CSVCaps(columns: 8, fieldBytes: 64, lineBytes: 256)
    let whole = read([bytes[...]], caps: caps)
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    let pieces = read([bytes[..<split], bytes[split...]], caps: caps)
    Fuzz.require(whole == pieces, "split at \(split): \(pieces) against \(whole) for \(bytes)")
    guard case .success(let records) = whole else { return 0 }
    var previous = 0
    for record in records {
        Fuzz.require(record.fields.count <= caps.columns, "\(record.fields.count) fields over the cap")
        Fuzz.require(record.fields.allSatisfy { $0.utf8.count <= caps.fieldBytes }, "a field over the cap: \(record)")
        Fuzz.require(record.line >= max(1, previous), "line \(record.line) after \(previous)")
        previous = record.line
    }
    var written: [UInt8] = []
    for record in records {
        // Quotes doubled byte by byte (a `"` with a combining mark after it is one Character for String's replacing).
        for (index, field) in record.fields.enumerated() {
            if index > 0 { written.append(UInt8(ascii: ",")) }
            written.append(UInt8(ascii: "\""))
            for byte in field.utf8 {
                written.append(byte)
                if byte == UInt8(ascii: "\"") { written.append(byte) }
            }
            written.append(UInt8(ascii: "\""))
        }
        written += [0x0D, 0x0A]
    }
    let roomy = CSVCaps(columns: 8, fieldBytes: 64 * 2 + 2, lineBytes: 1 << 20)
    guard case .success(let again) = read([written[...]], caps: roomy) else {
        Fuzz.require(false, "the records written back do not read: \(records)")
        return 0
    }
    Fuzz.require(again.map(\.fields) == records.map(\.fields), "written back, \(records) read as \(again)")
    return 0
}

/// The records of `pieces` read in turn, then the end of the file; or the error.
private func read(_ pieces: [ArraySlice<UInt8>], caps: CSVCaps) -> Result<[CSVRecord], CSVReadError> {
    var reader = CSVReader(caps: caps)
    var records: [CSVRecord] = []
    do {
        for piece in pieces { records += try reader.read(piece) }
        records += try reader.finish()
        return .success(records)
    } catch {
        return .failure(error)
    }
}
