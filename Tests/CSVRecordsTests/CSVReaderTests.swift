import CSVRecords
import Testing

@Suite("CSVReader: RFC 4180 records with their lines, read in pieces, every cap checked as the bytes come")
struct CSVReaderTests {
    /// Every record of `text`, fed `piece` bytes at a time.
    static func records(_ text: String, piece: Int = 1, caps: CSVCaps = CSVCaps()) throws(CSVReadError) -> [CSVRecord] {
        var reader = CSVReader(caps: caps)
        var records: [CSVRecord] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            records += try reader.read(bytes[start..<min(start + piece, bytes.count)])
            start += piece
        }
        return records + (try reader.finish())
    }

    /// The error reading `bytes` gives, or nil.
    static func error(_ bytes: [UInt8], caps: CSVCaps = CSVCaps()) -> CSVReadError? {
        var reader = CSVReader(caps: caps)
        do {
            _ = try reader.read(bytes)
            _ = try reader.finish()
            return nil
        } catch {
            return error
        }
    }

    @Test("fields, quotes, doubled quotes, line breaks inside quotes; each record's first line; any piece size", arguments: [1, 2, 7, 4096])
    func records(piece: Int) throws {
        let text = "\u{FEFF}a,b,c\r\n1,\"two, with comma\",3\r\n\r\n\"multi\nline\",\"say \"\"hi\"\"\",\nlast,,x"
        let records = try Self.records(text, piece: piece)
        #expect(records == [
            CSVRecord(line: 1, fields: ["a", "b", "c"]),
            CSVRecord(line: 2, fields: ["1", "two, with comma", "3"]),
            CSVRecord(line: 4, fields: ["multi\nline", "say \"hi\"", ""]),
            CSVRecord(line: 6, fields: ["last", "", "x"]),
        ])
    }

    @Test("LF and lone CR line ends count lines alike")
    func lineEnds() throws {
        let records = try Self.records("a\nb\rc\r\n\"d\r\ne\"\nf")
        #expect(records.map(\.line) == [1, 2, 3, 4, 6])
        #expect(records[3].fields == ["d\r\ne"])
    }

    @Test("a NUL byte, a stray quote, an unclosed quote (the line it opened on), bad UTF-8: refused with the line")
    func refusals() {
        #expect(Self.error(Array("a,b\nc,\0d\n".utf8)) == CSVReadError(.nulByte, line: 2, "line 2 holds a NUL byte"))
        #expect(Self.error(Array("a,b\nc,d\"e\n".utf8))?.code == .badQuote)
        #expect(Self.error(Array("a,\"b\"c\n".utf8))?.code == .badQuote)
        let unclosed = Self.error(Array("a,b\nc,\"open\nmore\nand more\n".utf8))
        #expect(unclosed?.code == .unclosedQuote && unclosed?.line == 2, "\(String(describing: unclosed))")
        #expect(unclosed?.message.contains("line 2") == true)
        let utf8 = Self.error(Array("a,b\n".utf8) + [0x63, 0xFF, 0x2C, 0x64, 0x0A])
        #expect(utf8?.code == .invalidUTF8 && utf8?.line == 2)
    }

    @Test("100,000 columns are refused at the cap's first field past it, without reading them all")
    func columns() {
        var reader = CSVReader()
        var refusedAfter = 0
        let cell = Array("x,".utf8)
        do {
            for index in 0..<100_000 {
                refusedAfter = index
                _ = try reader.read(cell)
            }
            Issue.record("not refused")
        } catch {
            #expect(error.code == .tooManyColumns && error.line == 1)
            #expect(refusedAfter == 64, "refused at the 65th field")
        }
    }

    @Test("a field over its cap, a line over its cap")
    func lengths() {
        let caps = CSVCaps(columns: 64, fieldBytes: 10, lineBytes: 30)
        #expect(Self.error(Array("a,12345678901\n".utf8), caps: caps)?.code == .fieldTooLong)
        #expect(Self.error(Array("a,b\n\(String(repeating: "1234567,", count: 5))\n".utf8), caps: caps)
            == CSVReadError(.lineTooLong, line: 2, "line 2 is longer than 30 bytes"))
        #expect(Self.error(Array("0123456789,0123456789\n".utf8), caps: caps) == nil)
    }

    @Test("an empty file and one of empty lines have no records")
    func empty() throws {
        #expect(try Self.records("").isEmpty)
        #expect(try Self.records("\n\r\n\n").isEmpty)
        #expect(try Self.records("\u{FEFF}").isEmpty)
    }
}
