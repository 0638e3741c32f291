import Foundation

/// RFC 2397 `data:` URIs, which packagers (Shaka Packager's HLS SAMPLE-AES, shaka-player's test titles) use to
/// give a content key inline in `#EXT-X-KEY`. Such a key needs no fetch: it is read here, bounded in size so a
/// hostile playlist cannot make the license worker hold megabytes, and its text is redacted wherever a URI is
/// shown, because the URI *is* the key.
public enum DataURI {
    /// The longest `data:` URI read (base64 of a 32-byte key is 44 characters; percent-encoding triples it).
    public static let maxLength = 1024

    /// Whether `uri` is a `data:` URI (the scheme is case-insensitive, RFC 3986 §3.1).
    public static func isDataURI(_ uri: String) -> Bool {
        uri.utf8.count >= 5 && uri.prefix(5).lowercased() == "data:"
    }

    /// The bytes a `data:` URI carries: base64 when its media type ends in `;base64`, percent-decoded text
    /// otherwise. `expectedBytes` is the key's length (16 or 32): anything else is an error naming both.
    public static func decode(_ uri: String, expectedBytes: Int) throws(DataURIError) -> [UInt8] {
        guard isDataURI(uri) else { throw DataURIError("it does not start with 'data:'") }
        guard uri.utf8.count <= maxLength else {
            throw DataURIError("it is \(uri.utf8.count) characters long; a key's is at most \(maxLength)")
        }
        guard let comma = uri.firstIndex(of: ",") else {
            throw DataURIError("it has no ',' between its media type and its data")
        }
        let header = uri[uri.index(uri.startIndex, offsetBy: 5)..<comma]
        let decoded = try percentDecoded(uri[uri.index(after: comma)...].utf8)
        let bytes: [UInt8]
        if header.lowercased().hasSuffix(";base64") {
            let compact = String(decoding: decoded, as: UTF8.self).filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact) ?? Data(base64Encoded: base64URLToStandard(compact)) else {
                throw DataURIError("it says ';base64' but its data is not base64")
            }
            bytes = Array(data)
        } else {
            bytes = decoded  // raw key bytes, percent-encoded where they are not URI characters
        }
        guard bytes.count == expectedBytes else {
            throw DataURIError("it holds \(bytes.count) bytes; this key must be \(expectedBytes)")
        }
        return bytes
    }

    /// The URI with its data replaced by `…` (the media type stays: it says what kind of URI it was).
    public static func redacted(_ uri: String) -> String {
        let comma = uri.firstIndex(of: ",") ?? uri.endIndex
        return String(uri[..<comma].prefix(60)) + ",…"
    }

    /// The bytes of percent-encoded text (a key's bytes are rarely UTF-8, so `removingPercentEncoding` won't do).
    private static func percentDecoded(_ text: Substring.UTF8View) throws(DataURIError) -> [UInt8] {
        var out: [UInt8] = []
        var i = text.startIndex
        while i < text.endIndex {
            let byte = text[i]
            i = text.index(after: i)
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            let end = text.index(i, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            guard text.distance(from: i, to: end) == 2,
                let value = try? Hex.decode(String(decoding: text[i..<end], as: UTF8.self))
            else {
                throw DataURIError("its data has a '%' not followed by two hex digits")
            }
            out.append(contentsOf: value)
            i = end
        }
        return out
    }

    /// base64url (`-`, `_`, no padding) as standard base64, which some packagers write.
    private static func base64URLToStandard(_ text: String) -> String {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.utf8.count % 4 != 0 { s += "=" }
        return s
    }
}

/// A `data:` URI that does not carry a usable key; the message says what is wrong with it.
public struct DataURIError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "data: key URI: \(message)" }
}
