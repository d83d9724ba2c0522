/// Finds a run of base64url characters of one exact length in request bytes: what `HotRoute.Cost.byRuns` charges
/// more for, without this target knowing what the run is (the server's Ed25519 share tokens and short ids).
enum Base64URLRun {
    /// The highest cost of the `runs` one of `parts` carries (a run of exactly its length of base64url characters;
    /// `%XX` escapes end a run), else 1.
    static func cost(_ runs: [HotRoute.Run], _ parts: UnsafeRawBufferPointer...) -> Double {
        var cost = 1.0
        for run in runs where run.cost > cost && parts.contains(where: { carries(length: run.length, $0) }) {
            cost = run.cost
        }
        return cost
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
