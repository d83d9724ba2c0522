/// The module grid of a QR symbol while it is being built: function patterns, data placement, masking.
struct QRMatrix {
    let version: Int
    let size: Int
    private(set) var modules: [[Bool]]
    /// Modules that belong to a function pattern (finder, timing, alignment, format, version): never masked.
    private var isFunction: [[Bool]]

    init(version: Int) {
        self.version = version
        self.size = 17 + 4 * version
        self.modules = Array(repeating: Array(repeating: false, count: size), count: size)
        self.isFunction = modules
    }

    private mutating func setFunction(x: Int, y: Int, dark: Bool) {
        modules[y][x] = dark
        isFunction[y][x] = true
    }

    mutating func drawFunctionPatterns() {
        for index in 0..<size {
            setFunction(x: 6, y: index, dark: index % 2 == 0)
            setFunction(x: index, y: 6, dark: index % 2 == 0)
        }
        drawFinder(centreX: 3, centreY: 3)
        drawFinder(centreX: size - 4, centreY: 3)
        drawFinder(centreX: 3, centreY: size - 4)
        let positions = QRTables.alignmentPositions[version - 1]
        let last = positions.count - 1
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                let overlapsFinder = (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0)
                if !overlapsFinder { drawAlignment(centreX: x, centreY: y) }
            }
        }
        drawFormatBits(mask: 0)  // reserves the area; redrawn once the mask is chosen
        drawVersionBits()
    }

    private mutating func drawFinder(centreX: Int, centreY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centreX + dx
                let y = centreY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let distance = max(abs(dx), abs(dy))
                setFunction(x: x, y: y, dark: distance != 2 && distance != 4)
            }
        }
    }

    private mutating func drawAlignment(centreX: Int, centreY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunction(x: centreX + dx, y: centreY + dy, dark: max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// The 15 format bits (level M = 00, the mask, BCH(15,5), XOR 0x5412) in both copies, and the dark module.
    mutating func drawFormatBits(mask: Int) {
        let data = mask  // level M's two bits are 00
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { setFunction(x: 8, y: index, dark: bit(index)) }
        setFunction(x: 8, y: 7, dark: bit(6))
        setFunction(x: 8, y: 8, dark: bit(7))
        setFunction(x: 7, y: 8, dark: bit(8))
        for index in 9..<15 { setFunction(x: 14 - index, y: 8, dark: bit(index)) }
        for index in 0..<8 { setFunction(x: size - 1 - index, y: 8, dark: bit(index)) }
        for index in 8..<15 { setFunction(x: 8, y: size - 15 + index, dark: bit(index)) }
        setFunction(x: 8, y: size - 8, dark: true)
    }

    /// The 18 version bits (BCH(18,6)) in both 6×3 blocks, for version 7 and up.
    private mutating func drawVersionBits() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3
            let b = index / 3
            setFunction(x: a, y: b, dark: dark)
            setFunction(x: b, y: a, dark: dark)
        }
    }

    /// Places the codewords in the two-module-wide zigzag from the bottom-right corner (7.7.3).
    mutating func drawCodewords(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for column in 0..<2 {
                    let x = right - column
                    guard !isFunction[y][x], bitIndex < totalBits else { continue }
                    modules[y][x] = (codewords[bitIndex >> 3] >> UInt8(7 - bitIndex & 7)) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// XORs the data modules with mask `mask` (applying it twice undoes it).
    mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y][x] && Self.maskBit(mask, x: x, y: y) {
                modules[y][x].toggle()
            }
        }
    }

    static func maskBit(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    /// The mask with the lowest penalty score (ties go to the lower mask number).
    func bestMask() -> Int {
        var best = 0
        var bestScore = Int.max
        for mask in 0...7 {
            var trial = self
            trial.applyMask(mask)
            trial.drawFormatBits(mask: mask)
            let score = QRPenalty.score(trial.modules)
            if score < bestScore {
                best = mask
                bestScore = score
            }
        }
        return best
    }
}

/// The four penalty rules of ISO/IEC 18004 section 7.8.3, over the grid laid out flat: every row and column read once
/// for rules 1 and 3 (runs, and finder-like patterns as a sliding window of 11 bits), no array per line or window —
/// each of the eight masks is scored for every share page rendered, and a page of a link not yet rendered spent half
/// its time here before (`QRCodeTests.penaltyScoreMatchesTheRulesAsWritten` holds it to the rules as written).
enum QRPenalty {
    static func score(_ modules: [[Bool]]) -> Int {
        let size = modules.count
        var flat: [Bool] = []
        flat.reserveCapacity(size * size)
        for row in modules { flat.append(contentsOf: row) }
        return flat.withUnsafeBufferPointer { grid in
            var total = 0
            for index in 0..<size {
                total += linePenalty(grid, start: index * size, step: 1, count: size)
                total += linePenalty(grid, start: index, step: size, count: size)
            }
            // Rule 2: 3 points for each 2×2 block of one colour.
            for y in 0..<(size - 1) {
                for x in 0..<(size - 1) {
                    let at = y * size + x
                    let colour = grid[at]
                    if grid[at + 1] == colour, grid[at + size] == colour, grid[at + size + 1] == colour { total += 3 }
                }
            }
            // Rule 4: 10 points for each 5 % the dark modules' share is away from half.
            var dark = 0
            for module in grid where module { dark += 1 }
            let cells = size * size
            let deviation = (abs(dark * 20 - cells * 10) + cells - 1) / cells - 1
            return total + max(0, deviation) * 10
        }
    }

    /// Rules 1 and 3 along one row or column: 3 points for a run of 5 same-coloured modules, plus 1 for each module
    /// beyond 5; 40 points for each 1:1:3:1:1 finder-like pattern with four light modules on either side.
    private static func linePenalty(_ grid: UnsafeBufferPointer<Bool>, start: Int, step: Int, count: Int) -> Int {
        let lightThenPattern = 0b0000_1011101, patternThenLight = 0b1011101_0000
        var total = 0
        var previous = grid[start]
        var run = 1
        var window = previous ? 1 : 0
        for offset in 1..<count {
            let dark = grid[start + offset * step]
            if dark == previous {
                run += 1
            } else {
                if run >= 5 { total += 3 + run - 5 }
                run = 1
                previous = dark
            }
            window = (window << 1 | (dark ? 1 : 0)) & 0x7FF
            if offset >= 10 {
                if window == lightThenPattern { total += 40 }
                if window == patternThenLight { total += 40 }
            }
        }
        if run >= 5 { total += 3 + run - 5 }
        return total
    }
}
