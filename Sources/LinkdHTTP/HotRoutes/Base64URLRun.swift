/// Finds a run of base64url characters of one exact length in request bytes: what `HotRoute.Cost.byRun` charges
/// more for, without this target knowing what the run is (the server's Ed25519 share tokens).
enum Base64URLRun {
    /// `expensive` when one of `parts` carries a run of exactly `length` base64url characters (`%XX` escapes end a
    /// run), else 1.
    static func cost(length: Int, _ expensive: Double, _ parts: UnsafeRawBufferPointer...) -> Double {
        parts.contains { carries(length: length, $0) } ? expensive : 1
    }

    private static func carries(length: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var run = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                run += 1
            default:
                if run == length { return true }
                run = 0
                if byte == UInt8(ascii: "%") { i += 2 }
            }
            i += 1
        }
        return run == length
    }
}
