/// Bytes as hexadecimal text and back: digests in manifests and logs, key IDs, IVs, HMAC signatures, box ids.
/// One encoder and one strict decoder, so every place that writes hex writes the same lowercase form and every
/// place that reads it refuses the same bad input (an odd length, a character that is not a hex digit).
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Two lowercase hex digits per byte.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of hex text (either case, no prefix, no white space).
    public static func decode(_ text: some StringProtocol) throws(HexError) -> [UInt8] {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { throw HexError(.oddLength, length: chars.count, offset: nil) }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index]) else {
                throw HexError(.notHex, length: chars.count, offset: index)
            }
            guard let low = value(chars[index + 1]) else {
                throw HexError(.notHex, length: chars.count, offset: index + 1)
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// Whether `text` is `count` bytes of hex (`2 * count` hex digits).
    public static func isHex(_ text: some StringProtocol, bytes count: Int) -> Bool {
        text.utf8.count == 2 * count && text.utf8.allSatisfy { value($0) != nil }
    }

    /// Whether `char` is a hex digit as ``decode(_:)`` reads them: 0-9, a-f, A-F only (`Character.isHexDigit` also
    /// takes the fullwidth forms, which no decoder here reads).
    public static func isDigit(_ char: Character) -> Bool {
        char.utf8.count == 1 && value(char.utf8.first!) != nil
    }

    private static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Why text is not hex; the caller names the field it came from.
public struct HexError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// An odd number of characters: hex takes two digits a byte.
        case oddLength = "odd-length"
        /// A character other than 0-9, a-f, A-F.
        case notHex = "not-hex"
    }

    public var code: Code
    /// The text's length in UTF-8 bytes.
    public var length: Int
    /// For `notHex`: where the first bad character is (0-based, in UTF-8 bytes).
    public var offset: Int?

    public init(_ code: Code, length: Int, offset: Int?) {
        self.code = code
        self.length = length
        self.offset = offset
    }

    public var description: String {
        switch code {
        case .oddLength: "is \(length) characters long: hex takes two digits a byte, so an even number"
        case .notHex: "has a character that is not a hex digit (0-9, a-f) at position \((offset ?? 0) + 1)"
        }
    }
}
