import Foundation
import Testing

@testable import StowageIntegrity

@Suite("Integrity checks")
struct ContainerCheckTests {
    func check(_ bytes: [UInt8], _ kind: ContainerCheck.Kind, chunk: Int = 7) -> String? {
        var c = ContainerCheck.Checker(kind: kind)
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + chunk)
            bytes[i..<end].withUnsafeBytes { c.feed($0) }
            i = end
        }
        return c.finish()
    }

    func ts(packets: Int) -> [UInt8] {
        (0..<packets).flatMap { _ in [0x47] + [UInt8](repeating: 0xff, count: 187) }
    }

    @Test func mpegTS() {
        #expect(check(ts(packets: 3), .mpegTS) == nil)
        var bad = ts(packets: 3)
        bad[188] = 0x00
        #expect(check(bad, .mpegTS)?.contains("offset 188") == true)
        #expect(check(Array(ts(packets: 3).dropLast(5)), .mpegTS)?.contains("multiple of 188") == true)
    }

    func box(_ type: String, _ payload: Int) -> [UInt8] {
        let size = UInt32(8 + payload)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xff), UInt8(size >> 8 & 0xff), UInt8(size & 0xff)]
            + Array(type.utf8) + [UInt8](repeating: 0, count: payload)
    }

    @Test func fmp4() {
        let file = box("styp", 12) + box("moof", 100) + box("mdat", 1000)
        #expect(check(file, .fmp4, chunk: 3) == nil)
        #expect(check(Array(file.dropLast(10)), .fmp4)?.contains("truncated") == true)
        var bad = file
        bad[24] = 0x01
        #expect(check(bad, .fmp4) != nil)
    }

    @Test func webVTT() {
        #expect(check(Array("WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n".utf8), .webVTT) == nil)
        #expect(check([0xEF, 0xBB, 0xBF] + Array("WEBVTT\n".utf8), .webVTT) == nil)
        #expect(check(Array("<html>".utf8), .webVTT) != nil)
    }

    @Test func fileVerifierChecksLengthAndHash() throws {
        let path = NSTemporaryDirectory() + "stowage-verify-\(getpid()).ts"
        defer { unlink(path) }
        let bytes = ts(packets: 10)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let good = FileVerifier.verify(
            path: path, expectedBytes: Int64(bytes.count), expectedSHA256: nil, container: .mpegTS, chunkSize: 100)
        #expect(good.problem == nil)
        #expect(
            FileVerifier.verify(path: path, expectedBytes: nil, expectedSHA256: good.sha256, container: .mpegTS).problem
                == nil)
        #expect(
            FileVerifier.verify(path: path, expectedBytes: 5, expectedSHA256: nil, container: .other).problem?.contains(
                "expected 5") == true)
        let wrong = String(repeating: "0", count: 64)
        #expect(
            FileVerifier.verify(path: path, expectedBytes: nil, expectedSHA256: wrong, container: .other).problem?
                .contains("SHA-256") == true)
        #expect(
            FileVerifier.verify(path: path + ".missing", expectedBytes: nil, expectedSHA256: nil, container: .other)
                .problem == "file is missing")
    }
}

@Suite("Packed audio and DRM keys")
struct PackedAudioTests {
    @Test func packedAudioBehindAnExtensionlessURIIsNotCheckedAsTS() {
        var c = ContainerCheck.Checker(kind: .mpegTS)
        let id3: [UInt8] =
            Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10) + [0xFF, 0xF1, 0x50, 0x80]
        id3.withUnsafeBytes { c.feed($0) }
        #expect(c.finish() == nil)
    }
}
