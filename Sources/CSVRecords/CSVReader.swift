/// An RFC 4180 reader for hostile files, fed bytes as they arrive: each record comes out with the line it starts on,
/// and every cap is checked while reading, so a file breaking one is refused at that byte — 100,000 columns are
/// refused at the 65th, never built.
///
/// Accepted: `,` between fields; CRLF, LF or a lone CR between records; fields in double quotes (a quote inside
/// written twice, line breaks inside kept); an optional UTF-8 byte order mark; empty lines (skipped). Refused: a NUL
/// byte, a quote inside an unquoted field or text after a closing quote, a quoted field still open at the end (the
/// error names the line it opened on), more than `CSVCaps.columns` fields, a field over `CSVCaps.fieldBytes`, a
/// physical line over `CSVCaps.lineBytes`, a field that is not UTF-8.
public struct CSVReader: Sendable {
    /// The caps in force.
    public let caps: CSVCaps

    private var line = 1
    private var recordLine = 1
    private var fieldLine = 1
    private var lineBytes = 0
    private var field: [UInt8] = []
    private var fields: [String] = []
    private var state = State.fieldStart
    private var afterCR = false
    private var started = false
    private var prefix: [UInt8] = []

    private enum State: Sendable {
        /// At the start of a field (the record's first, or after a comma).
        case fieldStart
        /// Inside an unquoted field.
        case unquoted
        /// Inside a quoted field.
        case quoted
        /// A quote inside a quoted field: the field's end, or the first of two.
        case quoteInQuoted
    }

    /// A reader with `caps`.
    public init(caps: CSVCaps = CSVCaps()) {
        self.caps = caps
    }

    /// The physical line the reader is on (1-based).
    public var currentLine: Int { line }

    /// Reads `bytes`, the next piece of the file: the records that end in it.
    public mutating func read(_ bytes: some Sequence<UInt8>) throws(CSVReadError) -> [CSVRecord] {
        var records: [CSVRecord] = []
        for byte in bytes {
            if !started {
                // The first bytes: a UTF-8 byte order mark is dropped, anything else read as it is.
                prefix.append(byte)
                if Self.byteOrderMark.starts(with: prefix) {
                    if prefix.count == Self.byteOrderMark.count { started = true }
                    continue
                }
                started = true
                for held in prefix { try take(held, &records) }
                continue
            }
            try take(byte, &records)
        }
        return records
    }

    /// Ends the file: the last record (one not ended by a line break), if any; a quoted field still open is refused.
    public mutating func finish() throws(CSVReadError) -> [CSVRecord] {
        var records: [CSVRecord] = []
        if !started {
            started = true
            for held in prefix { try take(held, &records) }
        }
        switch state {
        case .quoted:
            throw CSVReadError(.unclosedQuote, line: fieldLine, "the quoted field opened on line \(fieldLine) is not closed")
        case .fieldStart where fields.isEmpty:
            break
        default:
            try endRecord(&records)
        }
        return records
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), lf: UInt8 = 0x0A, cr: UInt8 = 0x0D

    private mutating func take(_ byte: UInt8, _ records: inout [CSVRecord]) throws(CSVReadError) {
        if byte == 0 { throw CSVReadError(.nulByte, line: line, "line \(line) holds a NUL byte") }
        let wasAfterCR = afterCR
        afterCR = false
        if byte == Self.lf || byte == Self.cr {
            if byte == Self.lf, wasAfterCR, state != .quoted { return }  // the LF of a CRLF that ended a record
            if state == .quoted {
                if byte == Self.lf, !wasAfterCR { line += 1 } else if byte == Self.cr { line += 1 }
                afterCR = byte == Self.cr
                lineBytes = 0
                try append(byte)
                return
            }
            line += 1
            lineBytes = 0
            afterCR = byte == Self.cr
            if state == .fieldStart, fields.isEmpty {
                recordLine = line  // an empty line: no record
                return
            }
            try endRecord(&records)
            recordLine = line
            return
        }
        lineBytes += 1
        guard lineBytes <= caps.lineBytes else {
            throw CSVReadError(.lineTooLong, line: line, "line \(line) is longer than \(caps.lineBytes) bytes")
        }
        switch state {
        case .fieldStart:
            if byte == Self.quote {
                state = .quoted
                fieldLine = line
            } else if byte == Self.comma {
                try endField()
            } else {
                state = .unquoted
                try append(byte)
            }
        case .unquoted:
            if byte == Self.comma {
                try endField()
            } else if byte == Self.quote {
                throw CSVReadError(.badQuote, line: line, "line \(line): a quote inside an unquoted field (quote the field and double the quote)")
            } else {
                try append(byte)
            }
        case .quoted:
            if byte == Self.quote { state = .quoteInQuoted } else { try append(byte) }
        case .quoteInQuoted:
            if byte == Self.quote {
                state = .quoted
                try append(byte)
            } else if byte == Self.comma {
                try endField()
            } else {
                throw CSVReadError(.badQuote, line: line, "line \(line): text after the closing quote of a field")
            }
        }
    }

    private mutating func append(_ byte: UInt8) throws(CSVReadError) {
        guard field.count < caps.fieldBytes else {
            throw CSVReadError(.fieldTooLong, line: line, "line \(line): a field is longer than \(caps.fieldBytes) bytes")
        }
        field.append(byte)
    }

    /// Ends the field under way (a comma, or the record's end); a field past the column cap is refused before it
    /// is kept.
    private mutating func endField() throws(CSVReadError) {
        guard fields.count < caps.columns else {
            throw CSVReadError(.tooManyColumns, line: recordLine, "line \(recordLine) has more than \(caps.columns) fields")
        }
        guard let text = String(validating: field, as: UTF8.self) else {
            throw CSVReadError(.invalidUTF8, line: recordLine, "line \(recordLine) holds bytes that are not UTF-8")
        }
        fields.append(text)
        field.removeAll(keepingCapacity: true)
        state = .fieldStart
    }

    private mutating func endRecord(_ records: inout [CSVRecord]) throws(CSVReadError) {
        try endField()
        records.append(CSVRecord(line: recordLine, fields: fields))
        fields.removeAll(keepingCapacity: true)
    }
}

/// The caps a `CSVReader` holds a file to.
public struct CSVCaps: Sendable, Equatable {
    /// Most fields in a record.
    public var columns: Int
    /// Most bytes in a field (its quotes and doubled quotes not counted twice).
    public var fieldBytes: Int
    /// Most bytes on one physical line (line breaks not counted).
    public var lineBytes: Int

    /// Caps: 64 columns, fields of 8 KiB, lines of 64 KiB by default.
    public init(columns: Int = 64, fieldBytes: Int = 8192, lineBytes: Int = 65_536) {
        self.columns = columns
        self.fieldBytes = fieldBytes
        self.lineBytes = lineBytes
    }
}

/// One record of a CSV file.
public struct CSVRecord: Sendable, Equatable {
    /// The line the record starts on (1-based; a record with line breaks inside quotes spans more).
    public let line: Int
    /// Its fields, in order.
    public let fields: [String]

    /// A record starting on `line`.
    public init(line: Int, fields: [String]) {
        self.line = line
        self.fields = fields
    }
}

/// Why a CSV file was refused, and on which line.
public struct CSVReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Code: String, Sendable {
        /// A NUL byte.
        case nulByte = "nul_byte"
        /// A quoted field that is still open at the end of the file.
        case unclosedQuote = "unclosed_quote"
        /// A quote inside an unquoted field, or text after a closing quote.
        case badQuote = "bad_quote"
        /// More fields in a record than `CSVCaps.columns`.
        case tooManyColumns = "too_many_columns"
        /// A field over `CSVCaps.fieldBytes`.
        case fieldTooLong = "field_too_long"
        /// A physical line over `CSVCaps.lineBytes`.
        case lineTooLong = "line_too_long"
        /// A field that is not UTF-8.
        case invalidUTF8 = "invalid_utf8"
    }

    /// What is wrong.
    public let code: Code
    /// The line (1-based): where the quoted field opened for `unclosedQuote`, the record's first for a record's fault.
    public let line: Int
    /// What to tell a person, naming the line.
    public let message: String

    /// An error of `code` on `line`.
    public init(_ code: Code, line: Int, _ message: String) {
        self.code = code
        self.line = line
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
