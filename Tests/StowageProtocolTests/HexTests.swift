import StowageProtocol
import Testing

/// The one hex encoder and decoder every module uses (digests, key IDs, IVs, signatures, box ids).
@Suite struct HexTests {
    @Test func encodesLowercaseTwoDigitsAByte() {
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.encode([0x00, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xab, 0xff]) == "00010f107f80abff")
        #expect(Hex.encode(Array(0...255).map(UInt8.init)).count == 512)
    }

    @Test func decodesEitherCaseAndRoundTrips() throws {
        #expect(try Hex.decode("00010f107f80abff") == [0x00, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xab, 0xff])
        #expect(try Hex.decode("ABcdEF") == [0xab, 0xcd, 0xef])
        #expect(try Hex.decode("") == [])
        let all = Array(0...255).map(UInt8.init)
        #expect(try Hex.decode(Hex.encode(all)) == all)
    }

    @Test func refusesAnOddLengthNamingIt() {
        #expect(throws: HexError(.oddLength, length: 3, offset: nil)) { try Hex.decode("abc") }
        #expect(HexError(.oddLength, length: 3, offset: nil).description.contains("3 characters"))
    }

    /// Anything but 0-9, a-f, A-F is refused where it stands, the prefix `0x`, signs, spaces and the fullwidth
    /// digits `Character.isHexDigit` would let through included.
    @Test func refusesANonHexCharacterNamingWhere() {
        #expect(throws: HexError(.notHex, length: 4, offset: 1)) { try Hex.decode("0x12") }
        #expect(throws: HexError(.notHex, length: 4, offset: 3)) { try Hex.decode("abcg") }
        #expect(throws: HexError(.notHex, length: 4, offset: 0)) { try Hex.decode(" 1ab") }
        #expect(throws: HexError.self) { try Hex.decode("\u{FF11}\u{FF12}") }
        #expect(throws: HexError.self) { try Hex.decode("+1") }
        #expect(HexError(.notHex, length: 4, offset: 3).description.contains("position 4"))
    }

    @Test func isHexChecksLengthAndDigits() {
        #expect(Hex.isHex("00ff", bytes: 2))
        #expect(!Hex.isHex("00ff", bytes: 1))
        #expect(!Hex.isHex("00fg", bytes: 2))
    }

    /// A digit is what the decoder reads: ASCII only.
    @Test func digitsAreTheDecodersOnly() {
        #expect("0123456789abcdefABCDEF".allSatisfy(Hex.isDigit))
        for char: Character in ["g", "G", "x", " ", "-", "\u{FF11}", "\u{FF41}", "é", "👍"] {
            #expect(!Hex.isDigit(char), "\(char)")
        }
    }
}
