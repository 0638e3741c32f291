/// A sub-range of a resource (`EXT-X-BYTERANGE`, `BYTERANGE=`).
public struct ByteRange: Sendable, Equatable, Hashable {
    public var length: Int64
    public var offset: Int64

    public init(length: Int64, offset: Int64) {
        self.length = length
        self.offset = offset
    }

    /// Parses `n[@o]`; without `@o` the offset is `previousEnd` (nil = not allowed).
    static func parse(_ text: String, previousEnd: Int64?) throws(AttributeListError) -> ByteRange {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let length = Int64(parts[0].trimmingCharacters(in: " ")), length >= 0 else {
            throw AttributeListError(message: "byte range '\(text.prefix(40))' is not n[@o]")
        }
        if parts.count == 2 {
            guard let offset = Int64(parts[1].trimmingCharacters(in: " ")), offset >= 0,
                offset <= Int64.max - length
            else {
                throw AttributeListError(message: "byte range offset '\(parts[1].prefix(40))' is not a valid number")
            }
            return ByteRange(length: length, offset: offset)
        }
        guard let previousEnd else {
            throw AttributeListError(message: "byte range without offset must follow a byte range of the same resource")
        }
        return ByteRange(length: length, offset: previousEnd)
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return s
    }
}
