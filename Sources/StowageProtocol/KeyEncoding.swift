import Foundation

/// Encodings of key material on the wire: hex (`KEYID=0x…`) and base64url without padding (JSON Web Keys).
public enum KeyEncoding {
    /// Bytes of a hex key ID or IV as playlists and license APIs write it, with or without `0x` (``Hex``); nil if
    /// it is not hex.
    public static func hex(_ text: String) -> [UInt8]? {
        var hex = Substring(text)
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex = hex.dropFirst(2) }
        return try? Hex.decode(hex)
    }

    /// A key ID's lowercase hex, the form key IDs are compared in (``Hex/encode(_:)``).
    public static func hexString(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    public static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    public static func base64urlDecode(_ text: String) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map(Array.init)
    }
}
