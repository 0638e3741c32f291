import CZeroMQ

/// CURVE key material: key pairs and the Z85 text form (40 characters for a 32-byte key).
public enum Curve {
    /// A new key pair, both halves in Z85.
    public static func generateKeyPair() throws(ZMQError) -> (publicKey: String, secretKey: String) {
        var pub = [CChar](repeating: 0, count: 41)
        var sec = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&pub, &sec) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        return (string(pub), string(sec))
    }

    /// The public key that belongs to a Z85 secret key, or nil if the text is not a key.
    public static func publicKey(forSecret secret: String) -> String? {
        guard isKey(secret) else { return nil }
        var pub = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&pub, secret) == 0 else { return nil }
        return string(pub)
    }

    /// 32 key bytes from Z85 text, or nil if the text is not a 40-character Z85 key.
    public static func decode(_ z85: String) -> [UInt8]? {
        guard isKey(z85) else { return nil }
        var out = [UInt8](repeating: 0, count: 32)
        guard zmq_z85_decode(&out, z85) != nil else { return nil }
        return out
    }

    /// Z85 text of 32 key bytes.
    public static func encode(_ key: [UInt8]) -> String? {
        guard key.count == 32 else { return nil }
        var out = [CChar](repeating: 0, count: 41)
        guard zmq_z85_encode(&out, key, 32) != nil else { return nil }
        return string(out)
    }

    /// Whether `text` has the shape of a Z85 key (40 characters of the Z85 alphabet).
    public static func isKey(_ text: String) -> Bool {
        let alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")
        return text.count == 40 && text.allSatisfy { alphabet.contains($0) }
    }

    private static func string(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
