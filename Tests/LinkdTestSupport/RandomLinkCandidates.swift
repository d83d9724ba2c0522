import Foundation
public import LinkRouter

/// Paths no pattern was written for, to try on an app's host beside the spellings of its patterns
/// (`AppleLinkCandidates`): seeded, so a failure is the same on every run. Each is made from the segments of the
/// manifest's sample paths (in place, shuffled, dropped or repeated), stray values (numbers, uuids, words with
/// capitals, `%`-escapes, `%2F`, `.` and `..`, non-ASCII) and trailing or doubled slashes — near misses of the routes
/// more than noise, where a rule set and a resolver most easily part.
public enum RandomLinkCandidates {
    /// `count` distinct paths for `manifest` (fewer if the mix runs dry), made from `seed`.
    public static func candidates(_ manifest: AppManifest, count: Int, seed: UInt64) -> [AppleLinkCandidate] {
        let samples = AppleLinkCandidates.candidates(manifest).filter { $0.variant == "sample" }.map(\.path)
        let sampleSegments = samples.map { $0.split(separator: "/").map(String.init) }
        let vocabulary = Array(Set(sampleSegments.joined())).sorted()
        let strays = [
            "x", "0", "42", "4x2", "-1", "abc", "ABC", "Tab", "TODAY", "café", "caf%C3%A9", "%41", "%2F", "a%2Fb", "a%20b", ".",
            "..", "-", "_", "~", "%", "a%", AppleLinkCandidates.uuid, AppleLinkCandidates.uuid.uppercased(),
            "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz", String(repeating: "a", count: 70), "new", "edit", "s", "v1", ".well-known",
        ]
        var random = SplitMix64(seed: seed)
        var seen: Set<String> = []
        var made: [AppleLinkCandidate] = []
        var attempts = 0
        while made.count < count, attempts < count * 20 {
            attempts += 1
            var segments: [String]
            if let base = sampleSegments.randomElement(using: &random), !base.isEmpty, random.chance(0.7) {
                // A sample with one or two segments changed, dropped, repeated or added.
                segments = base
                for _ in 0..<(random.chance(0.5) ? 1 : 2) {
                    let index = Int(random.next() % UInt64(segments.count + 1))
                    switch random.next() % 4 {
                    case 0 where index < segments.count: segments[index] = pick(vocabulary, strays, &random)
                    case 1 where index < segments.count: segments.remove(at: index)
                    case 2 where index < segments.count: segments.insert(segments[index], at: index)
                    default: segments.insert(pick(vocabulary, strays, &random), at: index)
                    }
                }
            } else {
                segments = (0..<Int(random.next() % 6)).map { _ in pick(vocabulary, strays, &random) }
            }
            if random.chance(0.1), let first = segments.indices.randomElement(using: &random) {
                segments[first] = random.chance(0.5) ? segments[first].uppercased() : segments[first].capitalized
            }
            var path = "/" + segments.joined(separator: "/")
            if random.chance(0.15), path != "/" { path += "/" }
            if random.chance(0.04) { path = path.replacingOccurrences(of: "/", with: "//", options: [], range: path.index(after: path.startIndex)..<path.endIndex) }
            guard seen.insert(path).inserted else { continue }
            made.append(AppleLinkCandidate(path: path, variant: "random mix"))
        }
        return made
    }

    private static func pick(_ vocabulary: [String], _ strays: [String], _ random: inout SplitMix64) -> String {
        random.chance(0.6) && !vocabulary.isEmpty ? vocabulary.randomElement(using: &random)! : strays.randomElement(using: &random)!
    }
}

/// A small seeded generator (SplitMix64): the same numbers from the same seed on every machine.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator starting at `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }
}
