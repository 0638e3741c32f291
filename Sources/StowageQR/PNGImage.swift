import Foundation

/// A black-and-white PNG written here (no image library): 1-bit greyscale, rows filtered "none", the image data a
/// zlib stream of stored (uncompressed) blocks. A QR code of a link is a few kilobytes so: compression would save
/// little and cost code.
public enum PNGImage {
    /// The file's bytes for `height` rows of `width` pixels, `isBlack(x, y)` per pixel.
    public static func blackAndWhite(width: Int, height: Int, isBlack: (Int, Int) -> Bool) -> [UInt8] {
        precondition(width > 0 && height > 0, "an image has pixels")
        let rowBytes = (width + 7) / 8
        var raw: [UInt8] = []
        raw.reserveCapacity((rowBytes + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter type: none
            for byteIndex in 0..<rowBytes {
                var byte: UInt8 = 0
                for bit in 0..<8 {
                    let x = byteIndex * 8 + bit
                    // 1 = white in 1-bit greyscale; padding bits past the width stay 0.
                    if x < width, !isBlack(x, y) { byte |= 0x80 >> UInt8(bit) }
                }
                raw.append(byte)
            }
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [1, 0, 0, 0, 0]  // bit depth 1, greyscale, deflate, adaptive filters, no interlace
        return signature + chunk("IHDR", header) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A chunk: length, type, data, CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data
            + bigEndian(Checksums.crc32(data, continuing: Checksums.crc32(typeBytes)))
    }

    /// A zlib stream (RFC 1950) of deflate stored blocks (RFC 1951 §3.2.4), each at most 65535 bytes.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window; check bits make 0x7801 a multiple of 31
        var start = 0
        repeat {
            let end = min(start + 65535, data.count)
            let length = UInt16(end - start)
            out.append(end == data.count ? 1 : 0)  // BFINAL on the last block, BTYPE 00 (stored)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += data[start..<end]
            start = end
        } while start < data.count
        return out + bigEndian(Checksums.adler32(data))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

extension QRCode {
    /// The symbol as a PNG: `scale` pixels per module, a light quiet zone of `quietZone` modules (the standard's 4).
    public func png(scale: Int = 8, quietZone: Int = 4) -> [UInt8] {
        let side = (width + 2 * quietZone) * scale
        return PNGImage.blackAndWhite(width: side, height: side) { x, y in
            isDark(x: x / scale - quietZone, y: y / scale - quietZone)
        }
    }

    /// ``png(scale:quietZone:)`` as a `data:` URL, for an `<img>` (the gateway's CSP allows `img-src data:`).
    public func pngDataURL(scale: Int = 8, quietZone: Int = 4) -> String {
        "data:image/png;base64," + Data(png(scale: scale, quietZone: quietZone)).base64EncodedString()
    }
}
