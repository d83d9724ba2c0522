import Mustache
import Synchronization

/// A Mustache template that renders each context shape it meets through a skeleton compiled from Mustache itself,
/// with output byte-identical to Mustache's and without Mustache's per-value lookups and dynamic casts.
///
/// Mustache's output for a context is a function of the template, the context's shape (`TemplateShape`) and the
/// context's non-empty strings, each placed escaped or raw. The first time a shape is met, the template is rendered
/// with every string replaced by a marker (`U+E000`, its slot number, `&`, `U+E001`): where a marker comes out as
/// `…&amp;…` the slot is escaped, where as `…&…` raw, and the text between markers is the shape's fixed text. That
/// skeleton is kept only if it fills to exactly what Mustache renders, both for the real context and for probe
/// strings made to show any other use of a value (a transform such as `uppercased(title)`, a value that is not
/// placed as it is); otherwise, or when the marker output does not parse, the shape is rendered by Mustache for good.
/// A template whose source holds `U+E000` or `U+E001` is always rendered by Mustache.
final class CompiledTemplate: Sendable {
    /// The parsed template: the reference, and what renders every shape without a skeleton.
    let mustache: MustacheTemplate
    /// Whether skeletons may be compiled: false when the source holds a marker character.
    let compilable: Bool
    /// Most shapes kept (skeletons and Mustache-only shapes together); past it, new shapes are rendered by Mustache.
    let capacity: Int
    private let shapes = Mutex<[TemplateShape: ShapeRendering]>([:])

    /// How a shape is rendered.
    private enum ShapeRendering: Sendable {
        /// By filling its skeleton.
        case skeleton(TemplateSkeleton)
        /// By Mustache: its skeleton did not parse or did not render what Mustache renders.
        case mustacheOnly
    }

    /// The marker characters; a template holding either is never compiled.
    static let markerStart: Unicode.Scalar = "\u{E000}"
    /// See `markerStart`.
    static let markerEnd: Unicode.Scalar = "\u{E001}"

    /// - Parameters:
    ///   - mustache: the parsed template.
    ///   - source: its source, checked for marker characters.
    ///   - capacity: most shapes kept (256: a page has a few dozen in practice).
    init(mustache: MustacheTemplate, source: String, capacity: Int = 256) {
        self.mustache = mustache
        compilable = !source.unicodeScalars.contains { $0 == Self.markerStart || $0 == Self.markerEnd }
        self.capacity = capacity
    }

    /// How many shapes have a skeleton, and how many are rendered by Mustache for good.
    var shapeCounts: (skeletons: Int, mustacheOnly: Int) {
        shapes.withLock { shapes in
            let skeletons = shapes.values.count(where: { if case .skeleton = $0 { true } else { false } })
            return (skeletons, shapes.count - skeletons)
        }
    }

    /// The template rendered with `context`, as UTF-8: what `mustache.render(context.mustacheContext())` gives, byte
    /// for byte.
    func render(_ context: TemplateObject) -> [UInt8] {
        guard compilable else { return Array(mustache.render(context.mustacheContext()).utf8) }
        let (shape, slots) = context.shapeAndSlots()
        switch shapes.withLock({ $0[shape] }) {
        case .skeleton(let skeleton)?:
            return skeleton.fill(slots)
        case .mustacheOnly?:
            return Array(mustache.render(context.mustacheContext()).utf8)
        case nil:
            return Array(renderCompiling(context, shape: shape, slots: slots).utf8)
        }
    }

    /// Renders a shape met for the first time with Mustache, and keeps its skeleton (or that it has none) while there
    /// is room.
    private func renderCompiling(_ context: TemplateObject, shape: TemplateShape, slots: [String]) -> String {
        let reference = mustache.render(context.mustacheContext())
        guard shapes.withLock({ $0.count < capacity }) else { return reference }
        let rendering = compileSkeleton(context, slots: slots, reference: reference).map(ShapeRendering.skeleton) ?? .mustacheOnly
        shapes.withLock { shapes in
            if shapes.count < capacity { shapes[shape] = rendering }
        }
        return reference
    }

    /// The shape's skeleton, if its marker output parses and it fills to Mustache's output for the real strings
    /// (`reference`) and for the probes.
    private func compileSkeleton(_ context: TemplateObject, slots: [String], reference: String) -> TemplateSkeleton? {
        let markers = slots.indices.map { "\u{E000}\($0)&\u{E001}" }
        let marked = mustache.render(context.mustacheContext(substituting: markers))
        guard let skeleton = TemplateSkeleton(markedOutput: marked, slotCount: slots.count),
            skeleton.fill(slots).elementsEqual(reference.utf8)
        else { return nil }
        let probes = slots.indices.map(Self.probe)
        let probed = mustache.render(context.mustacheContext(substituting: probes))
        guard skeleton.fill(probes).elementsEqual(probed.utf8) else { return nil }
        return skeleton
    }

    /// A string for slot `index` that a transform or any use but placing it escaped or raw would change: both
    /// letter cases, every escaped character, one joined by a combining mark, a backslash and quotes (as a
    /// description of a collection would write them), a newline, and the slot number (so reordering shows).
    static func probe(_ index: Int) -> String {
        "aA\(index) <b>&amp;\"'\\ é&\u{301}\n\tz\(index)Zq"
    }
}

/// A shape's compiled rendering: its fixed text and its slots, each placed escaped or raw.
struct TemplateSkeleton: Sendable {
    /// One piece of the output.
    enum Piece: Sendable, Equatable {
        /// Fixed text.
        case text(String)
        /// Slot `n`'s string, HTML-escaped as Mustache escapes (`HTMLEscaping`).
        case escapedSlot(Int)
        /// Slot `n`'s string as it is.
        case rawSlot(Int)
    }

    /// The pieces, in output order.
    let pieces: [Piece]
    /// How many slots a context of this shape has.
    let slotCount: Int
    /// The fixed text of every piece, one after the other, as UTF-8.
    private let text: [UInt8]
    /// The pieces as `fill` writes them: a fixed text as its range in `text` (no string to retain per piece).
    private let steps: [Step]

    /// A piece as `fill` takes it.
    private enum Step {
        /// `text[start..<end]`.
        case text(start: Int, end: Int)
        /// Slot `n`, escaped.
        case escapedSlot(Int)
        /// Slot `n`, as it is.
        case rawSlot(Int)
    }

    /// Parses Mustache's output for a marker context; nil when a marker is cut or malformed, or names a slot at or
    /// past `slotCount`.
    init?(markedOutput: String, slotCount: Int) {
        let bytes = Array(markedOutput.utf8)
        var pieces: [Piece] = []
        var textStart = 0
        var index = 0
        while index < bytes.count {
            // U+E000 is EE 80 80 and U+E001 is EE 80 81 in UTF-8; EE only ever leads a character.
            guard bytes[index] == 0xEE, index + 2 < bytes.count, bytes[index + 1] == 0x80,
                bytes[index + 2] == 0x80 || bytes[index + 2] == 0x81
            else {
                index += 1
                continue
            }
            guard bytes[index + 2] == 0x80, let (piece, end) = Self.marker(in: bytes, at: index + 3, slotCount: slotCount)
            else { return nil }
            if textStart < index { pieces.append(.text(String(decoding: bytes[textStart..<index], as: UTF8.self))) }
            pieces.append(piece)
            index = end
            textStart = end
        }
        if textStart < bytes.count { pieces.append(.text(String(decoding: bytes[textStart...], as: UTF8.self))) }
        self.pieces = pieces
        self.slotCount = slotCount
        var text: [UInt8] = []
        steps = pieces.map { piece in
            switch piece {
            case .text(let piece):
                let start = text.count
                text.append(contentsOf: piece.utf8)
                return .text(start: start, end: text.count)
            case .escapedSlot(let slot): return .escapedSlot(slot)
            case .rawSlot(let slot): return .rawSlot(slot)
            }
        }
        self.text = text
    }

    /// The marker whose number starts at `start` (just past U+E000): its piece and the index just past its U+E001.
    private static func marker(in bytes: [UInt8], at start: Int, slotCount: Int) -> (Piece, Int)? {
        var index = start
        var number = 0
        while index < bytes.count, index - start < 9, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            number = number * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        guard index > start, number < slotCount, bytes[start] != UInt8(ascii: "0") || index == start + 1 else { return nil }
        let escapedAmpersand = Array("&amp;".utf8)
        let escaped: Bool
        if bytes[index...].starts(with: escapedAmpersand) {
            escaped = true
            index += escapedAmpersand.count
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "&") {
            escaped = false
            index += 1
        } else {
            return nil
        }
        guard bytes[index...].starts(with: [0xEE, 0x80, 0x81]) else { return nil }
        return (escaped ? .escapedSlot(number) : .rawSlot(number), index + 3)
    }

    /// The output, as UTF-8, for a context of this shape with these slot strings (`slots.count == slotCount`): written
    /// into one array sized once (an escaped string is at most six times its length: `"` becomes `&quot;`).
    func fill(_ slots: [String]) -> [UInt8] {
        precondition(slots.count == slotCount, "a skeleton filled with another shape's slots")
        var bound = text.count
        for step in steps {
            switch step {
            case .text: break
            case .escapedSlot(let slot): bound += HTMLEscaping.maxGrowth * slots[slot].utf8.count
            case .rawSlot(let slot): bound += slots[slot].utf8.count
            }
        }
        return [UInt8](unsafeUninitializedCapacity: bound) { output, count in
            count = 0
            text.withUnsafeBufferPointer { text in
                for step in steps {
                    switch step {
                    case .text(let start, let end):
                        let piece = UnsafeBufferPointer(rebasing: text[start..<end])
                        _ = UnsafeMutableBufferPointer(rebasing: output[count...]).initialize(fromContentsOf: piece)
                        count += piece.count
                    case .escapedSlot(let slot):
                        count += HTMLEscaping.write(slots[slot], into: UnsafeMutableBufferPointer(rebasing: output[count...]))
                    case .rawSlot(let slot):
                        var string = slots[slot]
                        count += string.withUTF8 { UnsafeMutableBufferPointer(rebasing: output[count...]).initialize(fromContentsOf: $0) }
                    }
                }
            }
        }
    }
}
