/// A byte range of a resource: `length` bytes from `offset` (an MPD writes it `first-last`, inclusive).
public struct SegmentByteRange: Sendable, Equatable, Hashable, Codable {
    public var offset: Int64
    public var length: Int64

    public init(offset: Int64, length: Int64) {
        self.offset = offset
        self.length = length
    }

    /// The offset of the byte after the range.
    public var end: Int64 { offset + length }

    /// `first-last` as an MPD (and an HTTP Range header) writes it.
    public var mpdText: String { "\(offset)-\(offset + length - 1)" }

    /// Parses `first-last` (both inclusive, `first <= last`) from `element@attribute`.
    static func parse(_ text: String, element: String, attribute: String) throws(DASHError) -> SegmentByteRange {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0].trimmed), let last = Int64(parts[1].trimmed),
            first >= 0, last >= first, last < Int64.max
        else {
            throw DASHError.invalid(element, attribute, text, "a byte range 'first-last'")
        }
        return SegmentByteRange(offset: first, length: last - first + 1)
    }
}

extension Substring {
    /// Without spaces, tabs and newlines at either end.
    var trimmed: Substring {
        var s = self
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return s
    }
}
