import Foundation

/// One ISO BMFF box inside a byte buffer: just enough of ISO/IEC 14496-12 to walk a text track's init section and
/// fragments. Every size is checked against its parent, so a malformed box is an error, never a read past the end.
struct MP4Box {
    var type: String
    /// Where the box starts (its size field) and ends, as offsets into the buffer.
    var start: Int
    var end: Int
    /// Where its content starts (after the size, type and any 64-bit size).
    var contentStart: Int

    /// The boxes in `bytes[range]`, in order.
    static func boxes(in bytes: [UInt8], range: Range<Int>) throws(SubtitleError) -> [MP4Box] {
        var out: [MP4Box] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard range.upperBound - offset >= 8 else {
                throw SubtitleError(.malformed, file: "", "\(range.upperBound - offset) stray byte(s) at \(offset)")
            }
            var size = Int(try be32(bytes, offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            var header = 8
            if size == 1 {
                let large = try be64(bytes, offset + 8)
                guard large <= UInt64(Int.max) else {
                    throw SubtitleError(.malformed, file: "", "box '\(type)' at \(offset) has size \(large)")
                }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else {
                throw SubtitleError(
                    .malformed, file: "",
                    "box '\(type)' at byte \(offset) claims \(size) bytes; \(range.upperBound - offset) are left")
            }
            out.append(MP4Box(type: type, start: offset, end: offset + size, contentStart: offset + header))
            offset += size
        }
        return out
    }

    /// The children of this box (its content is a list of boxes, after `skip` bytes of its own fields).
    func children(_ bytes: [UInt8], skip: Int = 0) throws(SubtitleError) -> [MP4Box] {
        guard contentStart + skip <= end else {
            throw SubtitleError(.malformed, file: "", "box '\(type)' at byte \(start) is too short")
        }
        return try Self.boxes(in: bytes, range: (contentStart + skip)..<end)
    }

    /// The first child of type `name`.
    func child(_ name: String, _ bytes: [UInt8]) throws(SubtitleError) -> MP4Box? {
        try children(bytes).first { $0.type == name }
    }

    /// A full box's version and flags.
    func versionAndFlags(_ bytes: [UInt8]) throws(SubtitleError) -> (version: UInt8, flags: UInt32) {
        let word = try Self.be32(bytes, contentStart, limit: end)
        return (UInt8(word >> 24), word & 0x00FF_FFFF)
    }

    static func be32(_ bytes: [UInt8], _ offset: Int, limit: Int? = nil) throws(SubtitleError) -> UInt32 {
        guard offset >= 0, offset + 4 <= (limit ?? bytes.count) else {
            throw SubtitleError(.malformed, file: "", "a box field at byte \(offset) runs past its box")
        }
        return bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func be64(_ bytes: [UInt8], _ offset: Int, limit: Int? = nil) throws(SubtitleError) -> UInt64 {
        guard offset >= 0, offset + 8 <= (limit ?? bytes.count) else {
            throw SubtitleError(.malformed, file: "", "a box field at byte \(offset) runs past its box")
        }
        return bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
