/// Fuzzing by small random edits: `bytes` with one to three bytes replaced, inserted or removed, the new bytes
/// drawn from `alphabet`.
func randomlyEdited(_ bytes: [UInt8], alphabet: [UInt8], using generator: inout some RandomNumberGenerator) -> [UInt8] {
    var bytes = bytes
    for _ in 0..<Int.random(in: 1...3, using: &generator) {
        let at = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: bytes[at] = alphabet.randomElement(using: &generator)!
        case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: at)
        default: if bytes.count > 1 { bytes.remove(at: at) }
        }
    }
    return bytes
}
