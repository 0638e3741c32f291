import StowageProtocol

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
        guard parts.count <= 2, let length = Int64(parts[0].trimmingCharacters(in: " ")) else {
            throw AttributeListError(message: "byte range '\(text.prefix(40))' is not n[@o]")
        }
        // A range of no bytes names nothing to keep (and no request can ask for it): refused with the others.
        guard (1...OutsideNumbers.maxBytes).contains(length) else {
            let field = OutsideNumber("byte range length", 1...OutsideNumbers.maxBytes, unit: "bytes")
            throw AttributeListError(message: "\(field.error(String(parts[0])))")
        }
        if parts.count == 2 {
            do {
                let offset = try OutsideNumbers.bytes("byte range offset").parse(parts[1].trimmingCharacters(in: " "))
                return ByteRange(length: length, offset: offset)
            } catch {
                throw AttributeListError(message: "\(error)")
            }
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
