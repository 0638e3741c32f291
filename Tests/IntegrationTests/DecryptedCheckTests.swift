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
    @Test func aSegmentBrokenBeforeEncryptionFailsTheTitle() throws {
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

        let status = try h.waitForFinal(try h.submit("index.m3u8"), timeout: 180)
        #expect(status.state == .failed && status.error?.code == .integrity, "\(String(describing: status.error))")
        #expect(status.error?.message.contains("after decryption") == true, "\(String(describing: status.error))")
        #expect(status.error?.message.contains("enc-2.ts") == true, "names the segment")
    }

    /// The same title unbroken completes: every segment decrypts with its own key and derived IV to whole MPEG-TS.
    @Test func everySegmentDecryptsWithItsKeyAndIV() throws {
        let h = try Harness(name: "decrypted-ok")
        try TestMedia.aesRotatingNoIV(into: h.media)
        try h.startOrigin()
        try h.startPipeline()
        let status = try h.waitForFinal(try h.submit("index.m3u8"), timeout: 120)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(!h.log("download-worker").contains("after decryption"))
    }
}
