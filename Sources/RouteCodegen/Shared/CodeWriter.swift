/// Lines of source with an indentation level: what every generator writes through.
struct CodeWriter {
    /// The text so far.
    private(set) var text = ""
    /// The spaces of one level.
    private let unit: String
    /// The current level.
    private var level = 0

    /// - Parameter indent: spaces per level.
    init(indent: Int = 4) { unit = String(repeating: " ", count: indent) }

    /// One line at the current level (an empty line stays empty).
    mutating func line(_ text: String = "") {
        self.text += text.isEmpty ? "\n" : String(repeating: unit, count: level) + text + "\n"
    }

    /// Text as it is (already ending in a newline).
    mutating func raw(_ text: String) { self.text += text }

    /// `opening`, the lines `body` writes one level deeper, then `closing`.
    mutating func block(_ opening: String, _ closing: String = "}", _ body: (inout CodeWriter) -> Void) {
        line(opening)
        level += 1
        body(&self)
        level -= 1
        line(closing)
    }
}
