import Foundation
import HTTPTypes
import Hummingbird

/// A byte range of a file on disk that the connection itself sends (`sendfile`), instead of the response body.
///
/// Hummingbird's response bodies are `ByteBuffer`s, so a route cannot hand NIO a `FileRegion`. A route that
/// knows its connection can send files (plain HTTP through the gateway's channel, see `FileRegionWriter`)
/// answers with an empty body, the real `Content-Length`, and this slice in the ``header`` field; the channel
/// handler removes the field and writes the file region in place of the body. Nothing else may set the field.
public struct FileSlice: Sendable, Equatable {
    /// The response header field that carries a slice from the route to the channel (never sent to a client).
    public static let header = HTTPField.Name("x-stowage-sendfile")!

    /// The file's absolute path.
    public var path: String
    /// The first byte to send.
    public var offset: Int
    /// How many bytes to send.
    public var length: Int
    /// The file's size when the headers were made: a file replaced since (a repair) is not sent under them.
    public var size: Int

    public init(path: String, offset: Int, length: Int, size: Int) {
        self.path = path
        self.offset = offset
        self.length = length
        self.size = size
    }

    /// The field's value: `OFFSET LENGTH SIZE PATH`; a path of visible ASCII without `%` (every title file's:
    /// tokens and safe served names) as it is, any other percent-encoded (a field value is visible ASCII).
    public var fieldValue: String {
        guard path.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "%") }) else {
            return "\(offset) \(length) \(size) \(path)"
        }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%")
        let path = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return "\(offset) \(length) \(size) \(path)"
    }

    /// The slice in a field value, or nil when it is not one.
    public init?(fieldValue: String) {
        let parts = fieldValue.split(separator: " ", maxSplits: 3)
        guard parts.count == 4, let offset = Int(parts[0]), let length = Int(parts[1]), let size = Int(parts[2]),
            offset >= 0, length > 0, offset + length <= size,
            let path = parts[3].utf8.contains(UInt8(ascii: "%")) ? parts[3].removingPercentEncoding : String(parts[3])
        else { return nil }
        self.init(path: path, offset: offset, length: length, size: size)
    }
}
