import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import StowageIntegrity

/// The container inside AES-CBC ciphertext, checked as the bytes stream in, whatever their chunking.
@Suite("Decrypting check")
struct DecryptingCheckTests {
    let key = Data((0..<16).map { UInt8($0) })
    let iv = Data((0..<16).map { UInt8(0xA0 + $0) })

    /// `packets` MPEG-TS packets (sync byte, then filler), `cut` bytes short of whole.
    func ts(_ packets: Int, cut: Int = 0) -> Data {
        var d = Data()
        for _ in 0..<packets {
            d.append(0x47)
            d.append(Data(repeating: 0x11, count: 187))
        }
        return d.prefix(d.count - cut)
    }

    func encrypt(_ plain: Data, key: Data? = nil) throws -> Data {
        try AES._CBC.encrypt(plain, using: .init(data: key ?? self.key), iv: AES._CBC.IV(ivBytes: iv))
    }

    func verdict(_ cipher: Data, chunk: Int, key: Data? = nil, iv: Data? = nil) -> String? {
        var check = StructureCheck(kind: .mpegTS, key: key ?? self.key, iv: iv ?? self.iv)
        var at = 0
        while at < cipher.count {
            let piece = cipher[at..<min(cipher.count, at + chunk)]
            piece.withUnsafeBytes { check.feed($0) }
            at += chunk
        }
        return check.finish()
    }

    @Test(arguments: [1, 7, 16, 100, 4096, 1 << 20])
    func wholeMPEGTSInsidePasses(chunk: Int) throws {
        #expect(verdict(try encrypt(ts(20)), chunk: chunk) == nil)
    }

    @Test(arguments: [1, 13, 4096])
    func aPlaintextCutShortFailsAfterDecryption(chunk: Int) throws {
        let problem = verdict(try encrypt(ts(20, cut: 100)), chunk: chunk)
        #expect(problem?.hasPrefix("after decryption: MPEG-TS length") == true, "\(problem ?? "nil")")
    }

    @Test func aWrongIVBreaksTheFirstPacket() throws {
        let problem = verdict(try encrypt(ts(20)), chunk: 500, iv: Data(repeating: 0, count: 16))
        #expect(problem?.hasPrefix("after decryption") == true, "\(problem ?? "nil")")
    }

    @Test func aWrongKeyOrCutCiphertextIsNamed() throws {
        let wrongKey = verdict(try encrypt(ts(20)), chunk: 64, key: Data(repeating: 9, count: 16))
        #expect(wrongKey != nil)
        let cipher = try encrypt(ts(20))
        #expect(verdict(cipher.prefix(cipher.count - 5), chunk: 64)?.contains("whole number of AES blocks") == true)
        #expect(verdict(Data(), chunk: 64)?.contains("whole number of AES blocks") == true)
    }

    @Test func fileVerifierChecksInsideTheCiphertext() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dec-\(UUID().uuidString).ts").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try encrypt(ts(20, cut: 100)).write(to: URL(fileURLWithPath: path))
        let plain = FileVerifier.verify(path: path, expectedBytes: nil, expectedSHA256: nil, container: .mpegTS)
        #expect(plain.problem != nil, "ciphertext is no MPEG-TS as stored")
        let inside = FileVerifier.verify(
            path: path, expectedBytes: nil, expectedSHA256: nil, container: .mpegTS, decryption: (key, iv),
            chunkSize: 1000)
        #expect(inside.problem?.hasPrefix("after decryption") == true, "\(inside.problem ?? "nil")")
        try encrypt(ts(20)).write(to: URL(fileURLWithPath: path))
        let good = FileVerifier.verify(
            path: path, expectedBytes: nil, expectedSHA256: nil, container: .mpegTS, decryption: (key, iv))
        #expect(good.problem == nil)
    }
}
