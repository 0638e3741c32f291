/// The two checksums a PNG needs: CRC-32 (ISO 3309, as PNG chunks and zip use it) and Adler-32 (zlib's).
public enum Checksums {
    /// The CRC-32 lookup table of the reflected polynomial 0xEDB88320.
    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 of `bytes`, continuing from `crc` (a previous result) when given.
    public static func crc32(_ bytes: some Sequence<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var c = crc ^ 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    /// Adler-32 of `bytes` (zlib's trailer).
    public static func adler32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var pending = 0
        for byte in bytes {
            a += UInt32(byte)
            b += a
            pending += 1
            // 5552 bytes is the most before b can pass 2^32 (zlib's NMAX): reduce then, not every byte.
            if pending == 5552 {
                a %= 65521
                b %= 65521
                pending = 0
            }
        }
        return (b % 65521) << 16 | (a % 65521)
    }
}
