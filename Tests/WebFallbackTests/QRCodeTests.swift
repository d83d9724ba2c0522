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

