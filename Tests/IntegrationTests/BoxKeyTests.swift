import Crypto
import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// `stowctl box key` against real schedulers in two homes: the identity bundles are signed with and keys are
/// sealed for (docs/bundles.md).
@Suite("Box key", .serialized)
struct BoxKeyTests {
    /// The public key a box prints, once the scheduler answers.
    func boxKey(_ h: Harness) throws -> [String: String] {
        var out = ""
        try h.waitUntil(timeout: 20, "the scheduler to answer box key") {
            let (code, text) = try h.stowctl(["box", "key"])
            out = text
            return code == 0
        }
        let line = try #require(out.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
    }

    @Test func eachBoxHasOneKeyKeptBesideMasterKeyAcrossRestarts() throws {
        let a = try Harness(name: "boxkey-a")
        let b = try Harness(name: "boxkey-b")
        try a.startScheduler()
        try b.startScheduler()
        let keyA = try boxKey(a)
        let keyB = try boxKey(b)
        // The id is the first 8 bytes of SHA-256 of the Ed25519 public key, and both halves are 32-byte keys.
        let signing = try #require(Data(base64Encoded: keyA["signingKey"] ?? ""))
        #expect(signing.count == 32 && Data(base64Encoded: keyA["agreementKey"] ?? "")?.count == 32)
        #expect(keyA["id"] == Hex.encode(SHA256.hash(data: signing).prefix(8)))
        #expect(keyA["id"] != keyB["id"], "two boxes, two identities")
        // box.key sits beside master.key, private to the scheduler's user.
        let file = a.home.appendingPathComponent("box.key").path
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.size] as? NSNumber)?.intValue == 64)
        #expect(((attributes[.posixPermissions] as? Int) ?? 0o777) & 0o077 == 0)
        #expect(FileManager.default.fileExists(atPath: a.home.appendingPathComponent("master.key").path))
        // Made once: the same key after a restart.
        #expect(a.terminate("scheduler") == 0)
        try a.startScheduler()
        #expect(try boxKey(a) == keyA)
    }
}
