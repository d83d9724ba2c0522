import Foundation
import LinkdTestSupport
import Testing
@testable import WebFallback

/// The QR encoder against python-qrcode (a known-good encoder) module for module, and a real decoder round-trip.
@Suite struct QRCodeTests {
    /// Asks python-qrcode (a known-good encoder) for the matrix of each payload at level M, byte mode, the given
    /// version and mask (`nil`: its own mask choice). segno is not used: it pads a byte-aligned stream with an
    /// extra 0x00 codeword where ISO/IEC 18004 7.4.10 asks for pad codewords.
    private func referenceMatrices(_ cases: [(payload: [UInt8], version: Int, mask: Int?)]) throws -> [[[Bool]]] {
        let python = try ExternalTool.path("python3", install: "pip install qrcode")
        let script = """
            import sys, json, qrcode
            out = []
            for c in json.load(sys.stdin):
                q = qrcode.QRCode(version=c['version'], error_correction=qrcode.constants.ERROR_CORRECT_M,
                                  mask_pattern=c['mask'], border=0)
                q.add_data(bytes.fromhex(c['hex']), optimize=0)
                q.make(fit=False)
                out.append([''.join('1' if v else '0' for v in row) for row in q.modules])
            print(json.dumps(out))
            """
        let request = cases.map { c -> [String: Any] in
            ["hex": c.payload.map { String(format: "%02x", $0) }.joined(), "version": c.version,
             "mask": c.mask as Any? ?? NSNull()]
        }
        let input = try JSONSerialization.data(withJSONObject: request)
        let output: [UInt8]
        do {
            output = try ExternalTool.run(python, ["-c", script], input: Array(input))
        } catch {
            throw ExternalTool.Failure(description: "python-qrcode reference failed (pip install qrcode): \(error)")
        }
        let rows = try JSONDecoder().decode([[String]].self, from: Data(output))
        return rows.map { $0.map { $0.map { $0 == "1" } } }
    }

    /// `nil` when equal, otherwise how many modules differ and the first one.
    private func difference(_ ours: [[Bool]], _ theirs: [[Bool]]) -> String? {
        guard ours.count == theirs.count else { return "size \(ours.count) vs \(theirs.count)" }
        var count = 0
        var first: (Int, Int)?
        for y in ours.indices {
            for x in ours[y].indices where ours[y][x] != theirs[y][x] {
                count += 1
                if first == nil { first = (x, y) }
            }
        }
        guard let first else { return nil }
        return "\(count) modules differ from python-qrcode, first at x=\(first.0) y=\(first.1)"
    }

    private func payload(length: Int, seed: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: ($0 &* 31 &+ seed &* 17) ^ ($0 >> 3)) }
    }

    @Test func everyMaskAndVersionMatchesPythonQRCode() throws {
        var cases: [(payload: [UInt8], version: Int, mask: Int?)] = []
        var ours: [QRCode] = []
        for version in 1...10 {
            let length = QRTables.byteCapacity(version: version)
            for mask in 0...7 {
                let bytes = payload(length: length - (mask % 3), seed: version * 8 + mask)
                let code = try QRCode.encode(bytes, mask: mask)
                #expect(code.version == version)
                cases.append((bytes, version, mask))
                ours.append(code)
            }
        }
        let reference = try referenceMatrices(cases)
        for (code, expected) in zip(ours, reference) {
            #expect(difference(code.modules, expected) == nil, "version \(code.version) mask \(code.mask)")
        }
    }

    /// Reference encoders score rule 3 differently, so the automatic choice is checked against the rules themselves:
    /// no other mask scores lower.
    @Test func automaticMaskHasTheLowestPenalty() throws {
        for count in 1...12 {
            let url = "https://links.example.com/s/" + String(repeating: "AQAAAAE", count: count)
            let chosen = try QRCode.encode(url)
            let chosenScore = QRPenalty.score(chosen.modules)
            for mask in 0...7 {
                let other = try QRCode.encode(url, mask: mask)
                #expect(QRPenalty.score(other.modules) >= chosenScore, "mask \(mask) beats \(chosen.mask) for \(count)")
            }
        }
    }

    /// The penalty as ISO/IEC 18004 7.8.3 words it, module by module, to hold the fast scorer to: random grids of
    /// every version's size, and grids made of finder-like runs.
    @Test func penaltyScoreMatchesTheRulesAsWritten() {
        func reference(_ modules: [[Bool]]) -> Int {
            let size = modules.count
            let lines = modules + (0..<size).map { x in modules.map { $0[x] } }
            var total = 0
            for line in lines {
                var run = 1
                for index in 1...line.count {
                    if index < line.count, line[index] == line[index - 1] { run += 1 } else {
                        if run >= 5 { total += 3 + run - 5 }
                        run = 1
                    }
                }
                let pattern: [Bool] = [true, false, true, true, true, false, true], light = [Bool](repeating: false, count: 4)
                for start in 0..<max(0, line.count - 10) {
                    let window = Array(line[start..<(start + 11)])
                    if window == light + pattern { total += 40 }
                    if window == pattern + light { total += 40 }
                }
            }
            for y in 0..<(size - 1) {
                for x in 0..<(size - 1) where Set([modules[y][x], modules[y][x + 1], modules[y + 1][x], modules[y + 1][x + 1]]).count == 1 {
                    total += 3
                }
            }
            let dark = modules.joined().filter { $0 }.count, cells = size * size
            return total + max(0, (abs(dark * 20 - cells * 10) + cells - 1) / cells - 1) * 10
        }
        var generator = SystemRandomNumberGenerator()
        let finderish: [Bool] = [false, false, false, false, true, false, true, true, true, false, true, false, false, false, false]
        for version in 1...10 {
            let size = 17 + 4 * version
            for density in [0.5, 0.2, 0.8] {
                let grid = (0..<size).map { _ in (0..<size).map { _ in Double.random(in: 0..<1, using: &generator) < density } }
                #expect(QRPenalty.score(grid) == reference(grid), "version \(version), density \(density)")
            }
            let striped = (0..<size).map { y in (0..<size).map { x in finderish[(x + y * 3) % finderish.count] } }
            #expect(QRPenalty.score(striped) == reference(striped), "finder-like runs, version \(version)")
        }
    }

    @Test func tooLongAndBadMaskAreErrors() {
        #expect(throws: QRCodeError.self) { try QRCode.encode([UInt8](repeating: 0x41, count: 214)) }
        #expect(throws: QRCodeError.self) { try QRCode.encode("x", mask: 8) }
        #expect(QRTables.byteCapacity(version: 10) == 213)
        #expect(QRTables.byteCapacity(version: 1) == 14)
    }

    /// Renders the SVG to PNG in headless chromium and decodes it with zbarimg.
    @Test func svgDecodesWithZbar() throws {
        let chromium = try ExternalTool.path("chromium", install: "apt-get install chromium")
        let zbar = try ExternalTool.path("zbarimg", install: "apt-get install zbar-tools")
        let directory = try ExternalTool.temporaryDirectory("qr")
        defer { try? FileManager.default.removeItem(at: directory) }
        let texts = [
            "https://links.example.com/s/AQAAAAEAAAAB",
            "https://links.example.com/s/" + String(repeating: "AgAAAAEx_-", count: 13),
        ]
        for (index, text) in texts.enumerated() {
            let code = try QRCode.encode(text)
            let svg = directory.appendingPathComponent("qr\(index).svg")
            let png = directory.appendingPathComponent("qr\(index).png")
            try Data(code.svg(moduleSize: 6).utf8).write(to: svg)
            let side = (code.size + 8) * 6
            try ExternalTool.run(chromium, [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--window-size=\(side + 40),\(side + 40)", "--screenshot=\(png.path)", svg.absoluteString,
            ])
            let decoded = try ExternalTool.run(zbar, ["-q", "--raw", png.path])
            #expect(String(decoding: decoded, as: UTF8.self).trimmingCharacters(in: .newlines) == text)
        }
    }
}

