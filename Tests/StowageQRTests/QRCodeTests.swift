import Foundation
import Testing

@testable import StowageQR

/// The QR code module: libqrencode's symbol, our PNG writer (its checksums and zlib stream), and the terminal text,
/// each read back by a real decoder (`zbarimg`, Debian's zbar-tools) where it is an image.
@Suite struct QRCodeTests {
    @Test func checksumsMatchTheirStandardCheckValues() {
        // CRC-32/ISO-HDLC's check value of "123456789", and Adler-32 of "Wikipedia" (RFC 1950's algorithm).
        #expect(Checksums.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksums.crc32(Array("IEND".utf8)) == 0xAE42_6082)  // every PNG ends with this CRC
        #expect(Checksums.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(Checksums.adler32([]) == 1)
        // Past zlib's NMAX (5552) bytes the sums are reduced: a megabyte of 0xFF (checked with Python's zlib).
        #expect(Checksums.adler32([UInt8](repeating: 0xFF, count: 1 << 20)) == 0x8E88_EF11)
    }

    @Test func zlibStoredBlocksSplitAt65535BytesAndEndWithAdler() {
        let data = [UInt8]((0..<70_000).map { UInt8($0 % 251) })
        let z = PNGImage.zlibStored(data)
        #expect(z.prefix(2) == [0x78, 0x01])
        #expect((Int(z[0]) << 8 | Int(z[1])) % 31 == 0, "zlib's header check")
        // Block 1: not final, 65535 bytes; block 2 final with the rest.
        #expect(z[2] == 0 && z[3] == 0xFF && z[4] == 0xFF && z[5] == 0 && z[6] == 0)
        let second = 2 + 5 + 65535
        #expect(z[second] == 1)
        #expect(Int(z[second + 1]) | Int(z[second + 2]) << 8 == 70_000 - 65535)
        #expect(z.count == 2 + 5 + 65535 + 5 + (70_000 - 65535) + 4)
        #expect(Array(z.suffix(4)) == PNGImage.bigEndian(Checksums.adler32(data)))
    }

    @Test func aLinkBecomesASymbolOfTheRightSize() throws {
        let code = try QRCode("http://box.lan:8480/pair/" + String(repeating: "A", count: 22))
        #expect(code.width >= 21 && (code.width - 21) % 4 == 0)
        // The three finder patterns' corners are dark, the module just inside the separator light.
        #expect(code.isDark(x: 0, y: 0) && code.isDark(x: code.width - 1, y: 0) && code.isDark(x: 0, y: code.width - 1))
        #expect(!code.isDark(x: 7, y: 7) && !code.isDark(x: -1, y: 3))
        #expect(throws: QRCodeError.empty) { try QRCode("") }
        #expect(throws: QRCodeError.tooLong(bytes: 3000)) { try QRCode(String(repeating: "x", count: 3000)) }
    }

    @Test func thePNGDecodesToTheLinkWithARealDecoder() throws {
        let link = "http://192.168.1.20:8480/pair/Zk3_q-9XbW1yT0aLmN8cPA"
        let png = try QRCode(link).png()
        #expect(Array(png.prefix(8)) == PNGImage.signature)
        #expect(try zbarimg(png) == link)
        let dataURL = try QRCode(link).pngDataURL()
        #expect(dataURL.hasPrefix("data:image/png;base64,"))
        let decoded = try #require(Data(base64Encoded: String(dataURL.dropFirst("data:image/png;base64,".count))))
        #expect([UInt8](decoded) == png)
    }

    @Test func theTerminalTextReadsBackToTheSameModules() throws {
        let link = "https://box.example:8443/pair/abcdefghijklmnopqrstuv"
        let code = try QRCode(link)
        let text = code.terminalText(quietZone: 2)
        let lines = text.split(separator: "\n")
        #expect(lines.count == (code.width + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.width + 4 })
        let back = try #require(QRCode.modules(ofTerminalText: text))
        #expect(back.width == code.width + 4)
        for y in 0..<back.width {
            for x in 0..<back.width { #expect(back.isDark(x: x, y: y) == code.isDark(x: x - 2, y: y - 2)) }
        }
        #expect(try zbarimg(back.png(scale: 6, quietZone: 2)) == link)
    }

    /// What `zbarimg` reads from a PNG: the text of the one QR code in it.
    func zbarimg(_ png: [UInt8]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") else {
            throw DecoderMissing()
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).png")
        try Data(png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        process.arguments = ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", file.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct DecoderMissing: Error, CustomStringConvertible {
        var description: String { "zbarimg is not installed (Deploy/test.sh installs Debian's zbar-tools)" }
    }
}
