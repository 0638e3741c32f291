import Foundation
import StowageProtocol
import StowageStore

extension SchedulerService {
    /// The key and IV a worker needs to check `r`'s container inside its ciphertext, or nil: the file is clear,
    /// its cipher was not kept (planned by an older version), or its key is not held (a device-only title, a
    /// license not acquired yet) — it is then checked by length and hash only, as before.
    func decryption(for r: ResourceRecord) -> SegmentDecryption? {
        guard r.encrypted, let cipher = r.cipher, let iv = KeyEncoding.hex(cipher.iv), iv.count == 16 else {
            return nil
        }
        guard let record = try? store.keys(token: r.token).first(where: { $0.position == cipher.key }),
            let wrapped = record.wrapped,
            let key = try? vault.unwrap(wrapped, token: r.token, index: cipher.key)
        else { return nil }
        return SegmentDecryption(key: Data(key), iv: Data(iv))
    }
}
