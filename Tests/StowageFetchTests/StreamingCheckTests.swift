import Crypto
import Foundation
import StowageProtocol
import Testing

@testable import StowageFetch

@Suite("Checks while the bytes stream in")
struct StreamingCheckTests {
    /// `count` MPEG-TS packets (sync byte 0x47 every 188 bytes).
    func packets(_ count: Int) -> [UInt8] {
        (0..<count * 188).map { $0 % 188 == 0 ? 0x47 : UInt8(truncatingIfNeeded: $0 &* 31) }
    }

    func run(_ bytes: [UInt8], container: Container?, chunk: Int) -> Result<String, StreamingCheck.Problem> {
        var check = StreamingCheck(container: container)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            bytes[offset..<end].withUnsafeBytes { check.feed($0) }
            offset = end
        }
        return check.finish()
    }

    @Test func theHashCoversEveryByteWhateverTheChunks() throws {
        let bytes = packets(40)
        let expected = Hex.encode(SHA256.hash(data: bytes))
        for chunk in [1, 187, 188, 1000, 1 << 16] {
            #expect(try run(bytes, container: .mpegTS, chunk: chunk).get() == expected, "chunks of \(chunk)")
        }
    }

    @Test func aCutPacketOrAMissingSyncByteIsAProblem() {
        let cut = Array(packets(10).dropLast(100))
        guard case .failure(let problem) = run(cut, container: .mpegTS, chunk: 500) else {
            Issue.record("a TS file cut inside a packet passed")
            return
        }
        #expect(problem.description.contains("188"), "\(problem.description)")
        var shifted = packets(10)
        shifted[188 * 3] = 0x00
        if case .success = run(shifted, container: .mpegTS, chunk: 4096) { Issue.record("a lost sync byte passed") }
    }

    @Test func encryptedBytesAreHashedWithoutAStructureCheck() throws {
        let opaque = (0..<1001).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let digest = try run(opaque, container: nil, chunk: 64).get()
        #expect(digest == Hex.encode(SHA256.hash(data: opaque)))
        if case .success = run(opaque, container: .mpegTS, chunk: 64) { Issue.record("1001 bytes passed as TS") }
    }
}
