/// The level-M tables of ISO/IEC 18004 (versions 1–10), data encoding and Reed–Solomon error correction.
enum QRTables {
    static let maxVersion = 10

    /// Block structure of one version at level M.
    struct Blocks {
        let ecPerBlock: Int
        let group1Count: Int
        let group1Data: Int
        let group2Count: Int
        let group2Data: Int

        var dataCodewords: Int { group1Count * group1Data + group2Count * group2Data }
    }

    /// Level M, indexed by version - 1 (ISO/IEC 18004 table 9).
    private static let levelM: [Blocks] = [
        Blocks(ecPerBlock: 10, group1Count: 1, group1Data: 16, group2Count: 0, group2Data: 0),
        Blocks(ecPerBlock: 16, group1Count: 1, group1Data: 28, group2Count: 0, group2Data: 0),
        Blocks(ecPerBlock: 26, group1Count: 1, group1Data: 44, group2Count: 0, group2Data: 0),
        Blocks(ecPerBlock: 18, group1Count: 2, group1Data: 32, group2Count: 0, group2Data: 0),
        Blocks(ecPerBlock: 24, group1Count: 2, group1Data: 43, group2Count: 0, group2Data: 0),
        Blocks(ecPerBlock: 16, group1Count: 4, group1Data: 27, group2Count: 0, group2Data: 0),
        Blocks(ecPerBlock: 18, group1Count: 4, group1Data: 31, group2Count: 0, group2Data: 0),
        Blocks(ecPerBlock: 22, group1Count: 2, group1Data: 38, group2Count: 2, group2Data: 39),
        Blocks(ecPerBlock: 22, group1Count: 3, group1Data: 36, group2Count: 2, group2Data: 37),
        Blocks(ecPerBlock: 26, group1Count: 4, group1Data: 43, group2Count: 1, group2Data: 44),
    ]

    /// Alignment pattern centre coordinates, indexed by version - 1 (annex E).
    static let alignmentPositions: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
        [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]

    static func blocks(version: Int) -> Blocks { levelM[version - 1] }

    /// Bits of the byte-mode character count indicator.
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// How many payload bytes a version holds in byte mode at level M.
    static func byteCapacity(version: Int) -> Int {
        (blocks(version: version).dataCodewords * 8 - 4 - countBits(version: version)) / 8
    }

    static func smallestVersion(forByteCount count: Int) -> Int? {
        (1...maxVersion).first { byteCapacity(version: $0) >= count }
    }

    /// Mode indicator, count, payload, terminator and pad codewords (section 7.4).
    static func dataCodewords(for bytes: [UInt8], version: Int) -> [UInt8] {
        let capacityBits = blocks(version: version).dataCodewords * 8
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        bits.append(0, count: min(4, capacityBits - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes()
        var pad: UInt8 = 0xEC
        while codewords.count < capacityBits / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Splits the data into blocks, adds each block's error-correction codewords and interleaves them (7.6).
    static func interleavedWithErrorCorrection(_ data: [UInt8], version: Int) -> [UInt8] {
        let layout = blocks(version: version)
        let divisor = ReedSolomon.divisor(degree: layout.ecPerBlock)
        var dataBlocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<(layout.group1Count + layout.group2Count) {
            let length = index < layout.group1Count ? layout.group1Data : layout.group2Data
            dataBlocks.append(Array(data[offset..<(offset + length)]))
            offset += length
        }
        let ecBlocks = dataBlocks.map { ReedSolomon.remainder($0, divisor: divisor) }
        var result: [UInt8] = []
        let longest = dataBlocks.map(\.count).max() ?? 0
        for column in 0..<longest {
            for block in dataBlocks where column < block.count { result.append(block[column]) }
        }
        for column in 0..<layout.ecPerBlock {
            for block in ecBlocks { result.append(block[column]) }
        }
        return result
    }
}

/// Bits appended most significant first.
struct BitBuffer {
    private(set) var bits: [Bool] = []
    var count: Int { bits.count }

    mutating func append(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    func bytes() -> [UInt8] {
        var result = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
        for (index, bit) in bits.enumerated() where bit { result[index / 8] |= 0x80 >> UInt8(index % 8) }
        return result
    }
}

/// Reed–Solomon over GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D).
enum ReedSolomon {
    /// The generator polynomial of the given degree, highest coefficient first, leading 1 dropped.
    static func divisor(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                result[index] = multiply(result[index], root)
                if index + 1 < degree { result[index] ^= result[index + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// The remainder of `data · x^degree` divided by the generator: the error-correction codewords.
    static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for index in divisor.indices { result[index] ^= multiply(divisor[index], factor) }
        }
        return result
    }

    /// Multiplication in GF(256) modulo 0x11D.
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var product = 0
        for shift in stride(from: 7, through: 0, by: -1) {
            product = (product << 1) ^ ((product >> 7) * 0x11D)
            product ^= Int((y >> UInt8(shift)) & 1) * Int(x)
        }
        return UInt8(product & 0xFF)
    }
}
