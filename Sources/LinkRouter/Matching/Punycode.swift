import Foundation

/// RFC 3492 Punycode, enough to turn a Unicode host into its ASCII (`xn--`) form so both spellings of an IDN match.
/// Labels are lowercased and NFC-normalized first (a simplification of IDNA 2008's mapping).
enum Punycode {
    /// `bücher.example` → `xn--bcher-kva.example`; nil when a label cannot be encoded.
    static func asciiHost(_ host: String) -> String? {
        let normalized = host.lowercased().precomposedStringWithCanonicalMapping
        var labels: [String] = []
        for label in normalized.split(separator: ".", omittingEmptySubsequences: false) {
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                labels.append(String(label))
            } else if let encoded = encode(String(label)) {
                labels.append("xn--" + encoded)
            } else {
                return nil
            }
        }
        return labels.joined(separator: ".")
    }

    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700

    /// Encodes one label (without the `xn--` prefix).
    static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map { Int($0.value) }
        guard input.count <= 63 else { return nil }
        var output = input.filter { $0 < 0x80 }.compactMap { Unicode.Scalar(UInt32($0)).map(Character.init) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = 128, delta = 0, bias = 72
        while handled < input.count {
            guard let next = input.filter({ $0 >= n }).min() else { return nil }
            delta += (next - n) * (handled + 1)
            n = next
            for value in input {
                if value < n { delta += 1 }
                if value == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, points: handled + 1, first: handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    private static func digit(_ value: Int) -> Character {
        let scalar = value < 26 ? 97 + value : 22 + value   // a–z, then 0–9
        return Character(Unicode.Scalar(UInt8(truncatingIfNeeded: scalar)))
    }

    private static func adapt(_ delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
