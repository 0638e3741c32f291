import Foundation
import HTTPTypes

/// The head of an answer carrying a file's bytes: 200 with the whole body, 206 with the one range asked for, or 416.
///
/// The one place that status, `Content-Range` and `Content-Length` are decided from a request's `Range` and
/// `If-Range` (``TitleFileServer/range(_:size:modified:dynamic:)``) and a file's fields
/// (``TitleFileServer/headers(_:size:modified:dynamic:)``): ``TitleFileServer`` builds its answers with it, and
/// the gateway's hot path answers a play's segments with it, so the two paths send the same head.
public struct FileHead: Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var fields: HTTPFields
    /// The body's bytes in the file (empty for 416, and for an empty file).
    public var bytes: Range<Int>

    /// The head of `relative` (`size` bytes, last modified `modified`) for a request with `request`'s fields.
    /// `dynamic`: rewritten per request (always whole, `no-store`). `sendfile`: the file's path, for a body the
    /// connection sends itself: the fields then carry its ``FileSlice`` (not for a HEAD: pass nil).
    public init(
        _ relative: String, size: Int, modified: Date, dynamic: Bool, request: HTTPFields, sendfile: String? = nil
    ) {
        fields = TitleFileServer.headers(relative, size: size, modified: modified, dynamic: dynamic)
        switch TitleFileServer.range(request, size: size, modified: modified, dynamic: dynamic) {
        case .whole:
            (status, bytes) = (.ok, 0..<size)
        case .partial(let range):
            (status, bytes) = (.partialContent, range.lowerBound..<(range.upperBound + 1))
            fields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        case .unsatisfiable:
            (status, bytes) = (.rangeNotSatisfiable, 0..<0)
            fields[.contentRange] = "bytes */\(size)"
        }
        fields[.contentLength] = "\(bytes.count)"
        if let sendfile, !bytes.isEmpty {
            fields[FileSlice.header] =
                FileSlice(path: sendfile, offset: bytes.lowerBound, length: bytes.count, size: size).fieldValue
        }
    }
}
