import CQRencode
import Foundation

/// A QR code symbol: its modules, dark or light, made by Debian's libqrencode (byte mode, error correction level M:
/// a phone reads it with 15 % of it smudged). What is drawn of it (``terminalText(quietZone:)``,
/// ``png(scale:quietZone:)``) is ours, so the gateway and `stowctl` need nothing else.
public struct QRCode: Sendable, Equatable {
    /// Modules per side (21 for version 1, four more per version).
    public let width: Int
    /// Row by row, `true` = dark.
    public let modules: [Bool]

    /// The symbol of `text` (UTF-8 bytes); ``QRCodeError`` when it is empty or too long for a QR code.
    public init(_ text: String) throws {
        guard !text.isEmpty else { throw QRCodeError.empty }
        guard text.utf8.count <= Self.maxBytes else { throw QRCodeError.tooLong(bytes: text.utf8.count) }
        guard let symbol = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw QRCodeError.encoder(errno: errno)
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        let data = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        // libqrencode's bit 0 of each byte is the module's colour; the other bits say what the module is for.
        self.init(width: width, modules: data.map { $0 & 1 == 1 })
    }

    /// A symbol from its modules (for tests and decoders of what was drawn).
    public init(width: Int, modules: [Bool]) {
        precondition(modules.count == width * width, "a QR code is square")
        self.width = width
        self.modules = modules
    }

    /// The most bytes encoded: version 40 at level M holds 2331; links are far shorter.
    public static let maxBytes = 2331

    /// Whether the module at column `x`, row `y` is dark; outside the symbol (its quiet zone) is light.
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < width else { return false }
        return modules[y * width + x]
    }
}

/// Why a text has no QR code.
public enum QRCodeError: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong(bytes: Int)
    /// libqrencode failed (its `errno`: ENOMEM, ERANGE, EINVAL).
    case encoder(errno: Int32)

    public var description: String {
        switch self {
        case .empty: "a QR code needs some text"
        case .tooLong(let bytes): "\(bytes) bytes are more than a QR code holds (\(QRCode.maxBytes))"
        case .encoder(let code): "libqrencode could not encode the text (errno \(code))"
        }
    }
}
