import Crypto
import Foundation
import _CryptoExtras

/// A ``ContainerCheck/Checker`` behind AES-CBC decryption: fed the ciphertext of a whole-segment encrypted file
/// (HLS `AES-128` / `AES-256`, DASH segment encryption) as it streams, it checks the plaintext's container and
/// the PKCS#7 padding, holding no more than a chunk in memory. The plaintext is never stored: the file stays
/// encrypted on disk as delivered, and a bad key, a broken padding or a damaged container is a failure.
public struct DecryptingCheck: Sendable {
    private var checker: ContainerCheck.Checker
    /// Raw key bytes (`SymmetricKey` is not `Sendable`; one is made per decryption call, which is cheap).
    private let key: [UInt8]
    private var iv: [UInt8]
    /// Ciphertext not yet decrypted: the last block is always held back, as only it carries the padding.
    private var pending: [UInt8] = []
    private var total: Int64 = 0
    private var failure: String?

    /// `key` 16 or 32 bytes, `iv` 16 bytes; another size is reported by ``finish()``.
    public init(kind: ContainerCheck.Kind, key: Data, iv: Data) {
        checker = ContainerCheck.Checker(kind: kind)
        self.key = Array(key)
        self.iv = Array(iv)
        if ![16, 24, 32].contains(key.count) { failure = "decryption key is \(key.count) bytes, not 16 or 32" }
        if iv.count != 16 { failure = "decryption IV is \(iv.count) bytes, not 16" }
    }

    /// Feeds the next chunk of ciphertext.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        total += Int64(chunk.count)
        guard failure == nil else { return }
        pending.append(contentsOf: chunk)
        let ready = (pending.count - 1) / 16 * 16  // whole blocks, the last (possibly partial) one kept back
        guard ready > 0 else { return }
        decrypt(ready)
    }

    /// The verdict once the whole file was fed: nil when it decrypts with valid padding to a sane container.
    public mutating func finish() -> String? {
        if let failure { return failure }
        guard total > 0, total % 16 == 0 else {
            return
                "\(total) bytes is not a whole number of AES blocks: not the ciphertext the key decrypts (truncated?)"
        }
        let last = pending
        guard
            let plain = try? AES._CBC.decrypt(
                last, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv), noPadding: true),
            let pad = plain.last, (1...16).contains(pad), plain.suffix(Int(pad)).allSatisfy({ $0 == pad })
        else {
            return "does not decrypt to valid PKCS#7 padding with its key and IV (a wrong key or damaged bytes)"
        }
        plain.prefix(plain.count - Int(pad)).withUnsafeBytes { checker.feed($0) }
        return checker.finish().map { "after decryption: \($0)" }
    }

    private mutating func decrypt(_ count: Int) {
        let blocks = pending[..<count]
        do {
            let plain = try AES._CBC.decrypt(
                blocks, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv), noPadding: true)
            iv = Array(blocks.suffix(16))
            plain.withUnsafeBytes { checker.feed($0) }
            pending.removeFirst(count)
        } catch {
            failure = "cannot decrypt: \(error)"
        }
    }
}
