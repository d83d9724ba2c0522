/// Names from a manifest (`Library/FlowDetail`, `coin.canvas`, `ordersList`, `sheet-2`) as identifiers of a language.
///
/// A name is cut into words at every character that is not an ASCII letter or digit and where the case turns
/// (`flowDetail` → `flow`, `Detail`; `COINEditor` → `COIN`, `Editor`); the words are joined in the style asked. A
/// name with no word becomes the fallback; one that starts with a digit gets a leading `_`.
enum IdentifierStyle {
    /// `libraryFlowDetail` (Swift cases): the first word lowercased, the others capitalised.
    case lowerCamel
    /// `LibraryFlowDetail` (types, objects): every word capitalised.
    case upperCamel
    /// `LIBRARY_FLOW_DETAIL` (constants): every word uppercased, joined by `_`.
    case screamingSnake

    /// `text` in this style; `fallback` when it has no ASCII letter or digit.
    func apply(_ text: String, fallback: String) -> String {
        let words = Self.words(text)
        guard !words.isEmpty else { return fallback }
        var out: String
        switch self {
        case .lowerCamel:
            out = words[0].lowercased() + words.dropFirst().map(Self.capitalised).joined()
        case .upperCamel:
            out = words.map(Self.capitalised).joined()
        case .screamingSnake:
            out = words.map { $0.uppercased() }.joined(separator: "_")
        }
        if let first = out.unicodeScalars.first, ("0"..."9").contains(first) { out = "_" + out }
        return out
    }

    /// The words of `text` (ASCII letters and digits only).
    static func words(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty { words.append(String(current)) }
            current = String.UnicodeScalarView()
        }
        for (index, scalar) in scalars.enumerated() {
            guard isLetter(scalar) || isDigit(scalar) else {
                flush()
                continue
            }
            if let previous = current.last, isUpper(scalar) {
                let next = index + 1 < scalars.count ? scalars[index + 1] : nil
                // `flowDetail`, `tab2Page`: a capital after a small letter or a digit starts a word; `COINEditor`: the
                // last capital of a run starts one when a small letter follows it.
                if isLower(previous) || isDigit(previous) || (isUpper(previous) && next.map(isLower) == true) { flush() }
            }
            current.append(scalar)
        }
        flush()
        return words
    }

    private static func capitalised(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }
    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool { isUpper(scalar) || isLower(scalar) }
    private static func isUpper(_ scalar: Unicode.Scalar) -> Bool { ("A"..."Z").contains(scalar) }
    private static func isLower(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) }
    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
}

/// The identifiers of one scope (an enum's cases, an object's constants): each name gets one that no other name of
/// the scope has and that is none of the scope's reserved names, in the order they are asked for — so the same
/// manifest gives the same identifiers. A second name with the same identifier gets `2`, then `3`… (`_2` in
/// `screamingSnake`).
struct IdentifierScope {
    private let style: IdentifierStyle
    private let fallback: String
    private var taken: Set<String>

    /// - Parameters:
    ///   - style: how names are written.
    ///   - fallback: the identifier of a name without letters or digits.
    ///   - reserved: identifiers the scope already uses (its members: `id`, `params`, `ALL`…).
    init(_ style: IdentifierStyle, fallback: String, reserved: Set<String> = []) {
        self.style = style
        self.fallback = fallback
        self.taken = reserved
    }

    /// The identifier of `name`, unique in the scope.
    mutating func identifier(for name: String) -> String {
        let base = style.apply(name, fallback: fallback)
        var candidate = base
        var number = 2
        while taken.contains(candidate) {
            candidate = style == .screamingSnake ? "\(base)_\(number)" : "\(base)\(number)"
            number += 1
        }
        taken.insert(candidate)
        return candidate
    }
}

/// Each language's reserved words: an identifier that is one is escaped (Swift and Kotlin: backticks) or avoided.
enum Keywords {
    /// Swift's keywords (declarations, statements, expressions and types, and `_`).
    static let swift: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func", "import",
        "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private", "precedencegroup", "protocol",
        "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_",
        "Type", "Protocol",
    ]

    /// Swift keywords that backticks do not make usable as a case or label (`self`, `Type`…): avoided instead.
    static let swiftUnescapable: Set<String> = ["self", "Self", "Type", "Protocol", "init", "_"]

    /// TypeScript's reserved and strict-mode words (and its type keywords), which no binding may take.
    static let typescript: Set<String> = [
        "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum",
        "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null",
        "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "as",
        "implements", "interface", "let", "package", "private", "protected", "public", "static", "yield", "any",
        "boolean", "constructor", "declare", "get", "module", "require", "number", "set", "string", "symbol", "type",
        "from", "of", "await", "async", "never", "unknown", "undefined", "object", "keyof", "readonly", "infer",
    ]

    /// Kotlin's hard keywords, which an identifier can be only in backticks.
    static let kotlin: Set<String> = [
        "as", "break", "class", "continue", "do", "else", "false", "for", "fun", "if", "in", "interface", "is", "null",
        "object", "package", "return", "super", "this", "throw", "true", "try", "typealias", "typeof", "val", "var",
        "when", "while",
    ]
}

/// Text as each language's source writes it: string literals, and comments that nothing in a manifest can end.
enum Text {
    /// `text` with every character but printable ASCII written `\u{…}`: safe in any comment or message.
    static func ascii(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars { appendASCII(scalar, to: &out) }
        return out
    }

    /// `scalar` as is when it is printable ASCII, else `\u{HEX}` (Swift's escape, also read in comments).
    private static func appendASCII(_ scalar: Unicode.Scalar, to out: inout String) {
        if scalar.value >= 0x20 && scalar.value < 0x7F {
            out.unicodeScalars.append(scalar)
        } else {
            out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    /// `text` for a `//` or `/* */` comment line: printable ASCII (`ascii`), no `*/`, and no `/*` (Kotlin's and
    /// Swift's block comments nest).
    static func comment(_ text: String) -> String {
        ascii(text).replacing("*/", with: "*\\/").replacing("/*", with: "/\\*")
    }

    /// A Swift string literal: `"`, `\` and every character but printable ASCII escaped.
    static func swiftString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: appendASCII(scalar, to: &out)
            }
        }
        return out + "\""
    }

    /// A single-quoted TypeScript string literal: `'`, `\` and every character but printable ASCII escaped
    /// (`\uXXXX` per UTF-16 unit, which every ECMAScript target reads).
    static func typeScriptString(_ text: String) -> String {
        "'" + cStyleEscaped(text, quote: "'", dollar: false) + "'"
    }

    /// A Kotlin string literal: `"`, `\`, `$` and every character but printable ASCII escaped (`\uXXXX`).
    static func kotlinString(_ text: String) -> String {
        "\"" + cStyleEscaped(text, quote: "\"", dollar: true) + "\""
    }

    private static func cStyleEscaped(_ text: String, quote: Unicode.Scalar, dollar: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == quote || scalar == "\\" || (dollar && scalar == "$") {
                out += "\\"
                out.unicodeScalars.append(scalar)
            } else if scalar == "\n" {
                out += "\\n"
            } else if scalar == "\t" {
                out += "\\t"
            } else if scalar.value >= 0x20 && scalar.value < 0x7F {
                out.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            }
        }
        return out
    }
}
