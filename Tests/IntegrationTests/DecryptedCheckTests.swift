import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Whole-segment ciphertext (HLS AES-128) is checked after decryption in memory: a segment that was broken before
/// it was encrypted hashes the same on every read, so only its decrypted container shows the damage.
@Suite("Decrypted container check", .serialized)
struct DecryptedCheckTests {
    /// AES-128 with rotating keys and no IV attribute (IVs from the media sequence): segment 2's clear bytes
    /// lose their last 100 bytes (no longer whole MPEG-TS packets) and are encrypted again with its own key and IV,
    /// so the ciphertext is well formed and only its plaintext is broken.
    @Test func aSegmentBrokenBeforeEncryptionIsRefusedAfterDecryption() throws {
        let h = try Harness(name: "decrypted-check")
        try TestMedia.aesRotatingNoIV(into: h.media)
        // Segment n=2 has sequence 9 and key k1 (keys rotate every two segments).
        _ = try TestMedia.sh(
            """
            k=$(od -An -tx1 k1.key | tr -d ' \\n'); iv=$(printf '%032x' 9)
            openssl enc -d -aes-128-cbc -K "$k" -iv "$iv" -in enc-2.ts -out clear-2.ts
            head -c $(( $(stat -c %s clear-2.ts) - 100 )) clear-2.ts > short-2.ts
            openssl enc -aes-128-cbc -K "$k" -iv "$iv" -in short-2.ts -out enc-2.ts
            rm clear-2.ts short-2.ts
            """, in: h.media)
        try h.startOrigin()
        try h.startPipeline()

        let token = try h.submit("index.m3u8")
        // The download worker's check refuses the segment on its first fetch. What the scheduler does with a file
        // whose check keeps failing (8 attempts with backoff, about a minute, then the title fails naming it) is
        // `RetryBudgetServiceTests` on the manual clock.
        var refusal = ""
        try h.waitUntil(timeout: 60, "a worker to refuse enc-2.ts (or the title to end)") {
            refusal = DecryptedCheckTests.integrityFailure(h, naming: "enc-2.ts") ?? ""
            return !refusal.isEmpty || (try? h.status(token))?.state.isFinal == true
        }
        #expect(!refusal.isEmpty, "enc-2.ts was not refused")
        #expect(refusal.contains("after decryption"), "\(refusal)")
        #expect(refusal.contains("not stored"), "\(refusal)")
        let status = try h.status(token)
        #expect(status.state != .completed, "\(status.state)")
        #expect(try !h.verifiedPaths(token).contains { $0.hasSuffix("enc-2.ts") }, "the broken segment is not kept")
    }

    /// A worker's `task failed` line for an `integrity` failure of the file named `file`, if any: the download
    /// worker checks as the file streams in, the integrity worker what was stored unchecked.
    static func integrityFailure(_ h: Harness, naming file: String) -> String? {
        (h.log("download") + h.log("integrity")).split(separator: "\n").first {
            $0.contains("task failed") && $0.contains("code=integrity") && $0.contains(file)
        }.map(String.init)
    }

    /// The same title unbroken completes: every segment decrypts with its own key and derived IV to whole MPEG-TS.
    @Test func everySegmentDecryptsWithItsKeyAndIV() throws {
        let h = try Harness(name: "decrypted-ok")
        try TestMedia.aesRotatingNoIV(into: h.media)
        try h.startOrigin()
        try h.startPipeline()
        let status = try h.waitForFinal(try h.submit("index.m3u8"), timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(!h.log("download").contains("after decryption"))
    }
}
