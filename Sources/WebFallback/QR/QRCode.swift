/// A QR code symbol (ISO/IEC 18004): byte mode, error-correction level M, versions 1–10.
///
/// Built by `QRCode.encode(_:)`; `modules[y][x]` is `true` for a dark module. Render it with `svg(moduleSize:)`.
/// Version 10-M holds 213 bytes, enough for every share URL linkd issues (about 160 bytes with Ed25519 tokens).
public struct QRCode: Sendable, Equatable {
    /// The version (1–10): the symbol is `17 + 4 * version` modules wide.
    public let version: Int
    /// The data mask (0–7) chosen by the penalty rules, or the one forced in `encode(_:mask:)`.
    public let mask: Int
    /// The modules, row by row (`modules[y][x]`), `true` for dark; no quiet zone.
    public let modules: [[Bool]]

    /// The width and height in modules, without the quiet zone.
    public var size: Int { modules.count }

    /// Encodes `bytes` in byte mode at level M in the smallest version that holds them.
    /// - Parameters:
    ///   - bytes: The payload (a URL's UTF-8 bytes).
    ///   - mask: A data mask to force (0–7); `nil` picks the one with the lowest penalty, as the standard asks.
    /// - Throws: `QRCodeError.tooLong` when the payload does not fit version 10, `.badMask` for a mask outside 0–7.
    public static func encode(_ bytes: [UInt8], mask: Int? = nil) throws(QRCodeError) -> QRCode {
        if let mask, !(0...7).contains(mask) {
            throw QRCodeError(code: .badMask, message: "QR mask \(mask) is outside 0–7")
        }
        guard let version = QRTables.smallestVersion(forByteCount: bytes.count) else {
            throw QRCodeError(
                code: .tooLong,
                message: "\(bytes.count) bytes do not fit a version-\(QRTables.maxVersion) QR code at level M "
                    + "(at most \(QRTables.byteCapacity(version: QRTables.maxVersion)) bytes)")
        }
        let data = QRTables.dataCodewords(for: bytes, version: version)
        let codewords = QRTables.interleavedWithErrorCorrection(data, version: version)
        var matrix = QRMatrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.drawCodewords(codewords)
        let chosen = mask ?? matrix.bestMask()
        matrix.applyMask(chosen)
        matrix.drawFormatBits(mask: chosen)
        return QRCode(version: version, mask: chosen, modules: matrix.modules)
    }

    /// Encodes a string's UTF-8 bytes; see `encode(_:mask:)`.
    public static func encode(_ text: String, mask: Int? = nil) throws(QRCodeError) -> QRCode {
        try encode(Array(text.utf8), mask: mask)
    }

    /// The symbol as a standalone SVG document (black on white, a 4-module quiet zone, one `<path>`).
    ///
    /// Each run of dark modules in a row is one stroke of width 1 along the row's middle (`M4 4.5h7m1 0h3…`, the moves
    /// relative within a row): about half the bytes of a rectangle per run, and the desktop landing page carries it.
    /// - Parameter moduleSize: The rendered width of one module in user units (the SVG's `width`/`height`).
    public func svg(moduleSize: Int = 8) -> String {
        let quiet = 4
        let full = size + 2 * quiet
        var path = ""
        path.reserveCapacity(size * size * 2)
        for (y, row) in modules.enumerated() {
            var x = 0
            var pen: Int?  // where the last run of this row ended
            while x < size {
                guard row[x] else {
                    x += 1
                    continue
                }
                var run = 1
                while x + run < size, row[x + run] { run += 1 }
                if let pen {
                    path += "m\(x - pen) 0h\(run)"
                } else {
                    path += "M\(x + quiet) \(y + quiet).5h\(run)"
                }
                pen = x + run
                x += run
            }
        }
        let pixels = full * max(1, moduleSize)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(full) \(full)" width="\(pixels)" \
            height="\(pixels)" shape-rendering="crispEdges" role="img" aria-label="QR code">\
            <rect width="\(full)" height="\(full)" fill="#fff"/><path fill="none" stroke="#000" d="\(path)"/></svg>
            """
    }
}

/// Why a QR code could not be built.
public struct QRCodeError: Error, Sendable, CustomStringConvertible {
    /// A machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String { case tooLong, badMask }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The payload is longer than the largest supported version holds.
        public static let tooLong = Code(.tooLong)
        /// A forced mask outside 0–7.
        public static let badMask = Code(.badMask)
        public var description: String { value.rawValue }
    }

    /// The reason.
    public let code: Code
    /// What went wrong, for a person.
    public let message: String
    public var description: String { "\(code): \(message)" }
}
