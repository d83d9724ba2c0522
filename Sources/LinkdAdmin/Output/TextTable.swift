import PrintableText

/// A plain-text table for a terminal: a header row, columns padded to their widest cell, two spaces between.
/// Cells come from the server (titles, owners, labels): control characters are shown escaped (`\n`, `\u{1B}`), so
/// no cell can move the cursor, recolour the terminal or forge a line.
public struct TextTable: Sendable, Equatable {
    /// The column titles.
    public var columns: [String]
    /// The rows, each a cell per column (missing cells are empty).
    public var rows: [[String]]

    /// A table of `columns` and `rows`.
    public init(columns: [String], rows: [[String]] = []) {
        self.columns = columns
        self.rows = rows
    }

    /// The table as lines of text (no trailing newline); `(none)` under the header when there are no rows.
    public func render() -> String {
        let cells = ([columns] + rows).map { row in columns.indices.map { Self.printable(row.indices.contains($0) ? row[$0] : "") } }
        let widths = columns.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
        var lines = cells.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : row[column].padded(to: widths[column])
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        if rows.isEmpty { lines.append("(none)") }
        return lines.joined(separator: "\n")
    }

    /// `text` with every control, separator and format character escaped (`PrintableText`).
    public static func printable(_ text: String) -> String {
        PrintableText.escaped(text)
    }
}

/// Label and value lines for one record: `key:  value`, labels padded to the widest.
public struct FieldList: Sendable, Equatable {
    /// The fields in order; nil values are left out.
    public var fields: [(String, String?)]

    /// A list of `fields`.
    public init(_ fields: [(String, String?)]) { self.fields = fields }

    /// The fields as lines of text.
    public func render() -> String {
        let shown = fields.compactMap { label, value in value.map { (label, TextTable.printable($0)) } }
        let width = shown.map { $0.0.count }.max() ?? 0
        return shown.map { label, value in (label + ":").padded(to: width + 1) + "  " + value }
            .joined(separator: "\n")
    }

    public static func == (lhs: FieldList, rhs: FieldList) -> Bool { lhs.render() == rhs.render() }
}

extension String {
    /// The text with spaces after it up to `width` characters.
    fileprivate func padded(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
