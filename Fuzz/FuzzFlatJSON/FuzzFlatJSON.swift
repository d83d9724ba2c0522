import Foundation
import FuzzSupport
import LinkdHTTP
import NIOCore

/// `FlatJSON.members`, the fast path's reader of the `POST /v1/resolve` body, on any bytes.
///
/// Invariants: what it reads, `JSONSerialization` (which Hummingbird's route reads the body with) reads the same —
/// the same keys, `null` where it says nil, the same strings scalar for scalar; and what it reads, written back
/// by `JSONEncoder`, it reads again to the same members (a round trip).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlatJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let members = FlatJSON.members(ByteBuffer(bytes: bytes)) else { return 0 }
    let input = String(decoding: bytes, as: UTF8.self).debugDescription
    let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    guard let object else {
        Fuzz.require(false, "FlatJSON reads \(input), JSONSerialization refuses it")
        return 0
    }
    Fuzz.require(sameScalars(Array(object.keys), Array(members.keys)), "keys differ from JSONSerialization's: \(input)")
    for (key, value) in members {
        let other = object[key]
        if let value {
            Fuzz.require(sameScalars([other as? String ?? "\u{FFFF}not a string"], [value]), "'\(key)' differs: \(input)")
        } else {
            Fuzz.require(other is NSNull, "'\(key)' is null for FlatJSON only: \(input)")
        }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let written = (try? encoder.encode(members)) ?? Data()
    let again = FlatJSON.members(ByteBuffer(bytes: written))
    Fuzz.require(again.map { sameScalars(Array($0.keys), Array(members.keys)) && $0 == members } == true,
                 "the members written by JSONEncoder do not read back: \(String(decoding: written, as: UTF8.self))")
    return 0
}

/// Whether two lists of strings hold the same strings, compared scalar by scalar (Swift's `==` would let
/// canonically equivalent spellings pass).
private func sameScalars(_ a: [String], _ b: [String]) -> Bool {
    func key(_ s: String) -> [UInt32] { s.unicodeScalars.map(\.value) }
    return a.map(key).sorted { $0.lexicographicallyPrecedes($1) } == b.map(key).sorted { $0.lexicographicallyPrecedes($1) }
}
