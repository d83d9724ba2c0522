/// Reads RFC 5545 iCalendar streams (with RFC 6868 parameter escapes and RFC 7986 properties) from bytes.
///
/// Written for hostile input: one linear pass over the bytes, unfolding before UTF-8 decoding, every count capped by
/// ``ICalendarLimits``. Problems it can step over become diagnostics on the document; a cap that is hit throws
/// ``ICalendarError``. Recurrence rules are kept as written and never expanded.
public struct ICalendarParser: Sendable {
    /// The caps applied to every parse.
    public var limits: ICalendarLimits

    /// Creates a parser with the given caps.
    public init(limits: ICalendarLimits = .init()) {
        self.limits = limits
    }

    /// Parses a whole iCalendar stream.
    /// - Parameter bytes: the raw file content (UTF-8, CRLF or LF line ends, optional BOM).
    /// - Throws: ``ICalendarError`` when a cap of ``limits`` is hit.
    public func parse(_ bytes: [UInt8]) throws(ICalendarError) -> ICalendarDocument {
        let result: Result<ICalendarDocument, ICalendarError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(ICalendarError) {
                return .success(try parse(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses a whole iCalendar stream from a buffer (see ``parse(_:)-([UInt8])``).
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(ICalendarError) -> ICalendarDocument {
        guard bytes.count <= limits.maxBytes else {
            throw ICalendarError(
                code: .inputTooLarge,
                message: "the calendar is \(bytes.count) bytes; at most \(limits.maxBytes) are accepted")
        }
        var reader = ContentReader(limits: limits)
        try reader.read(bytes)
        return reader.finish()
    }
}

private let space: UInt8 = 0x20
private let tab: UInt8 = 0x09
private let lineFeed: UInt8 = 0x0A
private let carriageReturn: UInt8 = 0x0D
private let colon = UInt8(ascii: ":")
private let semicolon = UInt8(ascii: ";")
private let comma = UInt8(ascii: ",")
private let equals = UInt8(ascii: "=")
private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")
private let caret = UInt8(ascii: "^")

/// Properties whose default value type is not TEXT and may hold `\`, `;` or `,` that must stay as written.
private let verbatimProperties: Set<String> = [
    "URL", "TZURL", "SOURCE", "ATTACH", "IMAGE", "CONFERENCE", "ORGANIZER", "ATTENDEE", "RRULE", "EXRULE", "RDATE",
    "EXDATE", "GEO", "DTSTART", "DTEND", "DUE", "DTSTAMP", "CREATED", "LAST-MODIFIED", "RECURRENCE-ID", "TRIGGER",
    "DURATION", "FREEBUSY", "TZOFFSETFROM", "TZOFFSETTO", "COMPLETED",
]

/// Components that never contain themselves: a BEGIN of one inside another means the first lost its END.
private let selfExclusive: Set<String> = [
    "VCALENDAR", "VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "VALARM", "STANDARD", "DAYLIGHT",
]

/// Name characters of RFC 5545 §3.1: letters, digits and `-`.
@inline(__always)
private func isNameByte(_ b: UInt8) -> Bool {
    (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D
}

/// The upper-cased ASCII name in `bytes` (only called on name bytes).
private func upperName(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    var hasLower = false
    for b in bytes where b >= 0x61 && b <= 0x7A {
        hasLower = true
        break
    }
    if !hasLower { return String(decoding: bytes, as: UTF8.self) }
    return String(decoding: bytes.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
}

/// The single-pass reader behind ``ICalendarParser``: splits lines, unfolds, parses content lines and builds the
/// component tree with a stack.
struct ContentReader {
    let limits: ICalendarLimits
    private var open: [ICalendarComponent] = []
    private var topLevel: [ICalendarComponent] = []
    private var diagnostics: [ICalendarDiagnostic] = []
    private var componentCount = 0
    private var propertyCount = 0
    private var parameterCount = 0
    private var unfolded: [UInt8] = []

    init(limits: ICalendarLimits) {
        self.limits = limits
    }

    /// Reads every logical line of `bytes`.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) throws(ICalendarError) {
        let end = bytes.count
        var position = 0
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        var lineNumber = 0

        /// The physical line at `start`: its content end (without CR/LF) and where the next line starts.
        func physicalLine(at start: Int) -> (contentEnd: Int, next: Int) {
            var i = start
            while i < end, bytes[i] != lineFeed { i += 1 }
            let next = i < end ? i + 1 : end
            var contentEnd = i
            if contentEnd > start, bytes[contentEnd - 1] == carriageReturn { contentEnd -= 1 }
            return (contentEnd, next)
        }

        while position < end {
            let start = position
            let (contentEnd, next) = physicalLine(at: start)
            lineNumber += 1
            position = next
            let firstLine = lineNumber
            if contentEnd == start { continue }  // a blank line
            if contentEnd - start > limits.maxLineLength { throw lineTooLong(firstLine) }
            if bytes[start] == space || bytes[start] == tab {
                try diagnose(firstLine, .foldWithoutLine, "a folded line with no content line before it; skipped")
                continue
            }
            if position < end, bytes[position] == space || bytes[position] == tab {
                // Folded: gather the continuation lines (minus their first byte) into one reusable buffer.
                unfolded.removeAll(keepingCapacity: true)
                unfolded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<contentEnd]))
                while position < end, bytes[position] == space || bytes[position] == tab {
                    let (foldEnd, foldNext) = physicalLine(at: position)
                    lineNumber += 1
                    let foldStart = position + 1
                    if foldEnd > foldStart {
                        if unfolded.count + (foldEnd - foldStart) > limits.maxLineLength { throw lineTooLong(firstLine) }
                        unfolded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[foldStart..<foldEnd]))
                    }
                    position = foldNext
                }
                let line = unfolded
                try line.withUnsafeBufferPointer { buffer throws(ICalendarError) in
                    try contentLine(buffer, line: firstLine)
                }
            } else {
                try contentLine(UnsafeBufferPointer(rebasing: bytes[start..<contentEnd]), line: firstLine)
            }
        }
    }

    /// Closes what is still open and returns the document.
    mutating func finish() -> ICalendarDocument {
        while let component = open.popLast() {
            // Diagnostics past the cap are not recorded here: the caps were checked while reading.
            diagnostics.append(
                ICalendarDiagnostic(
                    line: component.line, code: .missingEnd,
                    message: "BEGIN:\(component.name) is never closed; closed at the end of the input"))
            attach(component)
        }
        diagnostics.sort { $0.line < $1.line }
        return ICalendarDocument(components: topLevel, diagnostics: diagnostics)
    }

    // MARK: - Content lines

    /// One unfolded content line, `NAME *(;PARAM=value) : value`: a property of the innermost open component, or a
    /// BEGIN/END. A line that cannot be read is diagnosed and skipped.
    private mutating func contentLine(_ p: UnsafeBufferPointer<UInt8>, line: Int) throws(ICalendarError) {
        guard let nameEnd = try readName(p, line: line) else { return }
        let name = upperName(UnsafeBufferPointer(rebasing: p[0..<nameEnd]))
        var i = nameEnd
        var badUTF8 = false
        guard let parameters = try readParameters(p, at: &i, of: name, line: line, badUTF8: &badUTF8) else { return }
        // p[i] is the first colon outside quotes: the value follows it.
        let valueBytes = UnsafeBufferPointer(rebasing: p[(i + 1)...])

        if name == "BEGIN" || name == "END" {
            if badUTF8 { try diagnose(line, .invalidUTF8, "bytes that are not UTF-8 were replaced") }
            try componentBoundary(isBegin: name == "BEGIN", valueBytes, line: line)
            return
        }
        try addProperty(name, parameters, valueBytes, badUTF8: &badUTF8, line: line)
    }

    /// Where the property name at the start of `p` ends (at its `:` or first `;`), or nil when the line has no
    /// valid name (diagnosed).
    @inline(__always)
    private mutating func readName(_ p: UnsafeBufferPointer<UInt8>, line: Int) throws(ICalendarError) -> Int? {
        let n = p.count
        var i = 0
        while i < n, isNameByte(p[i]) { i += 1 }
        guard i < n, p[i] == colon || p[i] == semicolon else {
            if p.firstIndex(of: colon) == nil {
                try diagnose(line, .missingColon, "a content line with no ':' (name:value); skipped")
            } else {
                try diagnose(line, .invalidName, "a property name may only hold letters, digits and '-'; line skipped")
            }
            return nil
        }
        guard i > 0 else {
            try diagnose(line, .invalidName, "a content line with an empty name; skipped")
            return nil
        }
        return i
    }

    /// The `;NAME=value,…` parameters from `i` (at the name's end) up to the `:` before the value, where `i` is left.
    /// Nil when the line is skipped (diagnosed); throws when a parameter cap is hit.
    private mutating func readParameters(
        _ p: UnsafeBufferPointer<UInt8>, at i: inout Int, of name: String, line: Int, badUTF8: inout Bool
    ) throws(ICalendarError) -> [ICalendarParameter]? {
        let n = p.count
        var parameters: [ICalendarParameter] = []
        while i < n, p[i] == semicolon {
            i += 1
            let nameStart = i
            while i < n, isNameByte(p[i]) { i += 1 }
            guard i > nameStart, i < n, p[i] == equals else {
                try diagnose(line, .invalidParameter, "a parameter of \(name) is not NAME=value; line skipped")
                return nil
            }
            let parameterName = upperName(UnsafeBufferPointer(rebasing: p[nameStart..<i]))
            i += 1
            guard let values = try readParameterValues(p, at: &i, of: name, line: line, badUTF8: &badUTF8) else {
                return nil
            }
            guard i < n else {
                try diagnose(line, .missingColon, "\(name) has no ':' before its value; line skipped")
                return nil
            }
            guard p[i] == colon || p[i] == semicolon else {
                try diagnose(line, .invalidParameter, "a stray character in a parameter of \(name); line skipped")
                return nil
            }
            parameterCount += 1
            if parameterCount > limits.maxParameters {
                throw ICalendarError(
                    code: .tooManyParameters, message: "more than \(limits.maxParameters) parameters in the calendar",
                    line: line)
            }
            if parameters.count >= limits.maxParametersPerProperty {
                throw ICalendarError(
                    code: .tooManyParameters,
                    message: "\(name) has more than \(limits.maxParametersPerProperty) parameters", line: line)
            }
            parameters.append(ICalendarParameter(name: parameterName, values: values))
        }
        return parameters
    }

    /// The comma-separated values of one parameter from `i` (after its `=`), each quoted or bare, decoded; `i` is
    /// left on the byte after the last value. Nil when a quote is not closed (diagnosed).
    @inline(__always)
    private mutating func readParameterValues(
        _ p: UnsafeBufferPointer<UInt8>, at i: inout Int, of name: String, line: Int, badUTF8: inout Bool
    ) throws(ICalendarError) -> [String]? {
        let n = p.count
        var values: [String] = []
        while true {
            let valueStart: Int
            let valueEnd: Int
            if i < n, p[i] == quote {
                valueStart = i + 1
                i = valueStart
                while i < n, p[i] != quote { i += 1 }
                guard i < n else {
                    try diagnose(line, .unterminatedQuote, "a quoted parameter value of \(name) is not closed; line skipped")
                    return nil
                }
                valueEnd = i
                i += 1
            } else {
                valueStart = i
                while i < n, p[i] != comma, p[i] != semicolon, p[i] != colon, p[i] != quote { i += 1 }
                valueEnd = i
            }
            values.append(decodeParameter(UnsafeBufferPointer(rebasing: p[valueStart..<valueEnd]), badUTF8: &badUTF8))
            if i < n, p[i] == comma {
                i += 1
                continue
            }
            break
        }
        return values
    }

    /// Adds the property `name` with its value (unescaped when it is TEXT) to the innermost open component; dropped
    /// (diagnosed) outside any component, throws when a property cap is hit.
    private mutating func addProperty(
        _ name: String, _ parameters: [ICalendarParameter], _ valueBytes: UnsafeBufferPointer<UInt8>,
        badUTF8: inout Bool, line: Int
    ) throws(ICalendarError) {
        let rawValue = decodeUTF8(valueBytes, badUTF8: &badUTF8)
        var value = rawValue
        if valueBytes.contains(backslash), isText(name: name, parameters: parameters) {
            value = String(decoding: TextEscaping.unescapeText(valueBytes), as: UTF8.self)
        }
        if badUTF8 { try diagnose(line, .invalidUTF8, "bytes that are not UTF-8 in \(name) were replaced with U+FFFD") }
        guard !open.isEmpty else {
            try diagnose(line, .propertyOutsideComponent, "\(name) is outside any component; dropped")
            return
        }
        propertyCount += 1
        if propertyCount > limits.maxProperties {
            throw ICalendarError(
                code: .tooManyProperties, message: "more than \(limits.maxProperties) properties in the calendar",
                line: line)
        }
        let last = open.count - 1
        if open[last].properties.count >= limits.maxPropertiesPerComponent {
            throw ICalendarError(
                code: .tooManyProperties,
                message: "\(open[last].name) has more than \(limits.maxPropertiesPerComponent) properties", line: line)
        }
        open[last].properties.append(
            ICalendarProperty(name: name, parameters: parameters, value: value, rawValue: rawValue, line: line))
    }

    /// Whether the value is TEXT (to be unescaped): a `VALUE=TEXT`, or no VALUE and a property that defaults to TEXT.
    private func isText(name: String, parameters: [ICalendarParameter]) -> Bool {
        for parameter in parameters where parameter.name == "VALUE" {
            return parameter.value.uppercased() == "TEXT"
        }
        return !verbatimProperties.contains(name)
    }

    // MARK: - Components

    private mutating func componentBoundary(
        isBegin: Bool, _ value: UnsafeBufferPointer<UInt8>, line: Int
    ) throws(ICalendarError) {
        var start = 0
        var end = value.count
        while start < end, value[start] == space || value[start] == tab { start += 1 }
        while end > start, value[end - 1] == space || value[end - 1] == tab { end -= 1 }
        let trimmed = UnsafeBufferPointer(rebasing: value[start..<end])
        guard !trimmed.isEmpty, trimmed.allSatisfy(isNameByte) else {
            try diagnose(
                line, .invalidBegin,
                "\(isBegin ? "BEGIN" : "END") needs a component name of letters, digits and '-'; ignored")
            return
        }
        let componentName = upperName(trimmed)
        if isBegin {
            if open.count >= limits.maxDepth {
                throw ICalendarError(
                    code: .nestingTooDeep, message: "components nested more than \(limits.maxDepth) deep", line: line)
            }
            componentCount += 1
            if componentCount > limits.maxComponents {
                throw ICalendarError(
                    code: .tooManyComponents, message: "more than \(limits.maxComponents) components in the calendar",
                    line: line)
            }
            if let innermost = open.last, innermost.name == componentName, selfExclusive.contains(componentName) {
                // A VEVENT cannot hold a VEVENT: the previous one lost its END.
                try diagnose(
                    innermost.line, .missingEnd,
                    "BEGIN:\(componentName) is never closed; closed at the next BEGIN:\(componentName) (line \(line))")
                if let previous = open.popLast() { attach(previous) }
            }
            open.append(ICalendarComponent(name: componentName, line: line))
            return
        }
        guard let innermost = open.last else {
            try diagnose(line, .endWithoutBegin, "END:\(componentName) with no open component; ignored")
            return
        }
        if innermost.name == componentName {
            if let component = open.popLast() { attach(component) }
            return
        }
        guard open.contains(where: { $0.name == componentName }) else {
            try diagnose(
                line, .wrongEnd, "END:\(componentName) does not match BEGIN:\(innermost.name) (line \(innermost.line)); ignored")
            return
        }
        // END of a component further out: close the ones in between, each reported.
        while let component = open.popLast() {
            if component.name == componentName {
                attach(component)
                break
            }
            try diagnose(
                line, .wrongEnd,
                "END:\(componentName) closes BEGIN:\(component.name) (line \(component.line)), which has no END of its own")
            attach(component)
        }
    }

    private mutating func attach(_ component: ICalendarComponent) {
        if open.isEmpty {
            topLevel.append(component)
        } else {
            open[open.count - 1].components.append(component)
        }
    }

    // MARK: - Decoding

    private func decodeUTF8(_ bytes: UnsafeBufferPointer<UInt8>, badUTF8: inout Bool) -> String {
        if let string = String(validating: bytes, as: UTF8.self) { return string }
        badUTF8 = true
        return String(decoding: bytes, as: UTF8.self)
    }

    private func decodeParameter(_ bytes: UnsafeBufferPointer<UInt8>, badUTF8: inout Bool) -> String {
        guard bytes.contains(caret) else { return decodeUTF8(bytes, badUTF8: &badUTF8) }
        let decoded = TextEscaping.decodeParameter(bytes)
        return decoded.withUnsafeBufferPointer { decodeUTF8($0, badUTF8: &badUTF8) }
    }

    // MARK: - Problems

    private mutating func diagnose(
        _ line: Int, _ code: ICalendarDiagnostic.Code, _ message: String
    ) throws(ICalendarError) {
        if diagnostics.count >= limits.maxDiagnostics {
            throw ICalendarError(
                code: .tooManyDiagnostics,
                message: "more than \(limits.maxDiagnostics) problems; the input is refused as too broken", line: line)
        }
        diagnostics.append(ICalendarDiagnostic(line: line, code: code, message: message))
    }

    private func lineTooLong(_ line: Int) -> ICalendarError {
        ICalendarError(
            code: .lineTooLong, message: "a content line is longer than \(limits.maxLineLength) bytes", line: line)
    }
}
