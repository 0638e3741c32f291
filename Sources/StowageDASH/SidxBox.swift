/// An ISO BMFF segment index (`sidx`, ISO/IEC 14496-12 §8.16.3): where each subsegment of a media file is.
public struct SidxBox: Sendable, Equatable {
    /// One referenced subsegment.
    public struct Reference: Sendable, Equatable {
        /// Its bytes in the media file.
        public var range: SegmentByteRange
        /// Duration in `timescale` units.
        public var duration: UInt32
        public var startsWithSAP: Bool

        public init(range: SegmentByteRange, duration: UInt32, startsWithSAP: Bool) {
            self.range = range
            self.duration = duration
            self.startsWithSAP = startsWithSAP
        }
    }

    public var version: UInt8
    public var referenceID: UInt32
    public var timescale: UInt32
    public var earliestPresentationTime: UInt64
    public var references: [Reference]

    /// Finds the first `sidx` box in `bytes` (other boxes before it are skipped) and reads it. `offset` is where
    /// `bytes` start in the media file, so that the references' byte ranges are offsets in that file.
    /// References to further `sidx` boxes (hierarchical indexes) are refused.
    public static func parse(_ bytes: [UInt8], offset: Int64) throws(DASHError) -> SidxBox {
        guard offset >= 0 else { throw failure("the index range starts at a negative offset") }
        // A WebM file announced as MP4 (or without a mimeType) is still told apart by its first element.
        if bytes.count >= 4, matroskaIDs.contains(bytes.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) {
            throw webMCues(nil)
        }
        var position = 0
        while bytes.count - position >= 8 {
            var reader = Reader(bytes: bytes, position: position)
            let size32 = try reader.u32()
            let type = try reader.fourCC()
            var size = UInt64(size32)
            if size32 == 1 {
                size = try reader.u64()
            } else if size32 == 0 {
                size = UInt64(bytes.count - position)
            }
            let header = reader.position - position
            guard size >= UInt64(header), size <= UInt64(bytes.count - position) else {
                throw failure("the '\(type)' box at byte \(position) of the index range is truncated or has a bad size")
            }
            let end = position + Int(size)
            if type == "sidx" {
                let anchor = offset.addingReportingOverflow(Int64(end))
                guard !anchor.overflow else { throw failure("the index range's offset is too large") }
                return try parseBody(Reader(bytes: Array(bytes[reader.position..<end]), position: 0), anchor: anchor.0)
            }
            position = end
        }
        throw failure("the index range holds no 'sidx' box")
    }

    private static func parseBody(_ body: Reader, anchor: Int64) throws(DASHError) -> SidxBox {
        var reader = body
        let version = try reader.u8()
        _ = try reader.bytes(3)
        guard version <= 1 else { throw failure("sidx version \(version) is not supported") }
        let referenceID = try reader.u32()
        let timescale = try reader.u32()
        guard timescale > 0 else { throw failure("sidx timescale is 0") }
        let earliest = version == 0 ? UInt64(try reader.u32()) : try reader.u64()
        let firstOffset = version == 0 ? UInt64(try reader.u32()) : try reader.u64()
        _ = try reader.bytes(2)
        let count = Int(try reader.u16())
        guard reader.remaining >= count * 12 else {
            throw failure("sidx announces \(count) references; they are cut off")
        }
        guard firstOffset <= UInt64(Int64.max) else { throw failure("sidx first_offset is too large") }
        let start = anchor.addingReportingOverflow(Int64(firstOffset))
        guard !start.overflow else { throw failure("sidx first_offset is too large") }
        var next = start.partialValue
        var references: [Reference] = []
        references.reserveCapacity(count)
        for index in 0..<count {
            let word = try reader.u32()
            let duration = try reader.u32()
            let sap = try reader.u32()
            guard word & 0x8000_0000 == 0 else {
                throw DASHError(
                    .unsupported, element: "SegmentBase", attribute: "indexRange",
                    "nested sidx not supported (reference \(index) points to another sidx)")
            }
            let size = Int64(word & 0x7FFF_FFFF)
            guard size > 0 else { throw failure("sidx reference \(index) has size 0") }
            let range = SegmentByteRange(offset: next, length: size)
            let (after, overflow) = next.addingReportingOverflow(size)
            guard !overflow else { throw failure("sidx references run past the largest file offset") }
            references.append(Reference(range: range, duration: duration, startsWithSAP: sap & 0x8000_0000 != 0))
            next = after
        }
        guard !references.isEmpty else { throw failure("sidx has no references") }
        return SidxBox(
            version: version, referenceID: referenceID, timescale: timescale, earliestPresentationTime: earliest,
            references: references)
    }

    /// EBML element IDs an index range of a WebM (Matroska) file starts with: `Cues`, `Segment`, the `EBML`
    /// header. Read as ISO BMFF they would be a box of absurd size with an unprintable type.
    static let matroskaIDs: Set<UInt32> = [0x1C53_BB6B, 0x1853_8067, 0x1A45_DFA3]

    /// A WebM SegmentBase: its index is a Matroska `Cues` element, not a `sidx`, and Stowage does not read Cues.
    static func webMCues(_ representation: String?) -> DASHError {
        DASHError(
            .unsupported, element: "SegmentBase", attribute: "indexRange",
            "WebM SegmentBase (Cues) is not supported"
                + (representation.map { " (Representation '\($0.prefix(40))')" } ?? "")
                + ": its index is a Matroska Cues element, not a 'sidx'; choose an MP4 (ISO BMFF) Representation "
                + "or a SegmentTemplate/SegmentList form of the title")
    }

    private static func failure(_ message: String) -> DASHError {
        DASHError(.invalidIndex, element: "SegmentBase", attribute: "indexRange", message)
    }

    /// Big-endian reads that fail instead of trapping at the end of the bytes.
    private struct Reader {
        let bytes: [UInt8]
        var position: Int

        var remaining: Int { bytes.count - position }

        mutating func bytes(_ n: Int) throws(DASHError) -> ArraySlice<UInt8> {
            guard n >= 0, remaining >= n else { throw failure("the sidx box is truncated") }
            defer { position += n }
            return bytes[position..<(position + n)]
        }

        mutating func u8() throws(DASHError) -> UInt8 { try bytes(1).first ?? 0 }

        mutating func u16() throws(DASHError) -> UInt16 { UInt16(truncatingIfNeeded: try unsigned(2)) }

        mutating func u32() throws(DASHError) -> UInt32 { UInt32(truncatingIfNeeded: try unsigned(4)) }

        mutating func u64() throws(DASHError) -> UInt64 { try unsigned(8) }

        mutating func fourCC() throws(DASHError) -> String {
            String(decoding: try bytes(4).map { (0x20..<0x7F).contains($0) ? $0 : 0x3F }, as: UTF8.self)
        }

        private mutating func unsigned(_ n: Int) throws(DASHError) -> UInt64 {
            try bytes(n).reduce(0) { ($0 << 8) | UInt64($1) }
        }
    }
}
