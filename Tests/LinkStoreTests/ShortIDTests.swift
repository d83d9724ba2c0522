import LinkStore
import Testing

/// `ShortID.generate`: the shape, and every base62 character drawn as often as the others (the draw takes bytes
/// below 248 modulo 62; taking every byte modulo 62 would draw `0`–`7` a quarter more often than the rest).
@Suite("Short id generation")
struct ShortIDTests {
    @Test("11 base62 characters, each of the 62 drawn within 10 % of its share over 20,000 ids")
    func uniform() {
        var counts: [UInt8: Int] = [:]
        var seen = Set<String>()
        for _ in 0..<20_000 {
            let id = ShortID.generate()
            #expect(ShortID.isShape(id))
            seen.insert(id)
            for byte in id.utf8 { counts[byte, default: 0] += 1 }
        }
        #expect(seen.count == 20_000)
        #expect(counts.count == 62)
        // 220,000 characters: 3,548 each expected, a standard deviation of about 60; 10 % is about 6 of them.
        let expected = Double(20_000 * ShortID.length) / 62
        for (byte, count) in counts.sorted(by: { $0.key < $1.key }) {
            #expect(abs(Double(count) - expected) < expected * 0.10, "\(Character(Unicode.Scalar(byte))): \(count) of \(Int(expected)) expected")
        }
    }
}
