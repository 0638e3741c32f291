import Foundation
import Testing

@testable import StowageDASH

/// SegmentBase: the index to fetch, then the `sidx` box (built byte by byte here) read into byte ranges.
@Suite("DASH segment index")
struct SidxTests {
    /// A `sidx` box: `references` are (referenced_size, duration, nested).
    static func sidx(
        version: UInt8, timescale: UInt32, earliest: UInt64, firstOffset: UInt64,
        references: [(size: UInt32, duration: UInt32, nested: Bool)]
    ) -> [UInt8] {
        var body: [UInt8] = [version, 0, 0, 0]
        body += be(1, 4) + be(UInt64(timescale), 4)
        body += version == 0 ? be(earliest, 4) + be(firstOffset, 4) : be(earliest, 8) + be(firstOffset, 8)
        body += [0, 0] + be(UInt64(references.count), 2)
        for r in references {
            body += be(UInt64(r.size | (r.nested ? 0x8000_0000 : 0)), 4) + be(UInt64(r.duration), 4)
            body += be(0x9000_0000, 4)
        }
        return be(UInt64(body.count + 8), 4) + Array("sidx".utf8) + body
    }

    /// `value` as `count` big-endian bytes.
    static func be(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static let threeSegments = sidx(
        version: 0, timescale: 90_000, earliest: 0, firstOffset: 0,
        references: [(5_000, 180_000, false), (6_000, 180_000, false), (7_000, 90_000, false)])

    @Test func segmentBaseAsksForTheIndexThenReadsItsSidx() throws {
        let mpd = try Fixtures.mpd(Fixtures.segmentBase)
        let period = mpd.periods[0]
        let addressing = try SegmentAddresser.address(period.adaptationSets[0].representations[0], in: period)
        guard case .needsIndex(let request) = addressing else {
            Issue.record("expected an index request, got \(addressing)")
            return
        }
        let file = "http://origin.test/movie/media/video.mp4"
        #expect(request.index == SegmentLocation(urls: [file], range: SegmentByteRange(offset: 1000, length: 68)))
        #expect(
            request.initialization == SegmentLocation(urls: [file], range: SegmentByteRange(offset: 0, length: 1000)))
        #expect(Self.threeSegments.count == 68)
        let segments = try request.segments(fromSidx: Self.threeSegments)
        #expect(
            segments.segments.map(\.location.range) == [
                SegmentByteRange(offset: 1068, length: 5_000), SegmentByteRange(offset: 6068, length: 6_000),
                SegmentByteRange(offset: 12_068, length: 7_000),
            ])
        #expect(segments.segments.map(\.location.url) == [file, file, file])
        #expect(segments.segments.map(\.duration) == [2, 2, 1])
        #expect(segments.segments.map(\.start) == [0, 2, 4])
        #expect(segments.timescale == 90_000)
        #expect(segments.initialization?.range?.mpdText == "0-999")
        // The same through Data.
        #expect(try request.segments(fromSidx: Data(Self.threeSegments)) == segments)
    }

    /// A `sidx` that describes more than the Period (5 s of subsegments in a 3 s presentation): nothing past the
    /// end is fetched, and the last subsegment kept (fetched whole) ends with the Period in the local MPD.
    @Test func sidxListingPastThePeriodEndStopsThere() throws {
        for (duration, expected) in [("PT3S", [2.0, 1.0]), ("PT4S", [2.0, 2.0]), ("PT5S", [2.0, 2.0, 1.0])] {
            let mpd = try Fixtures.mpd(
                Fixtures.segmentBase.replacingOccurrences(
                    of: "mediaPresentationDuration=\"PT5S\"", with: "mediaPresentationDuration=\"\(duration)\""))
            let period = mpd.periods[0]
            guard
                case .needsIndex(let request) = try SegmentAddresser.address(
                    period.adaptationSets[0].representations[0], in: period)
            else {
                Issue.record("expected an index request")
                return
            }
            let segments = try request.segments(fromSidx: Self.threeSegments).segments
            #expect(segments.map(\.duration) == expected, "\(duration)")
            #expect(segments.last?.location.range?.length == [5_000, 6_000, 7_000][expected.count - 1])
            #expect(segments.last?.durationTicks == UInt64(expected.last! * 90_000))
        }
    }

    @Test func version1WithFirstOffsetAndABoxBeforeIt() throws {
        let free: [UInt8] = SidxTests.be(8, 4) + Array("free".utf8)
        let box = Self.sidx(
            version: 1, timescale: 1_000, earliest: 10_000, firstOffset: 100,
            references: [(400, 2_000, false), (300, 1_500, false)])
        let parsed = try SidxBox.parse(free + box, offset: 5_000)
        #expect(parsed.version == 1)
        #expect(parsed.earliestPresentationTime == 10_000)
        let firstByte = Int64(5_000 + 8 + box.count + 100)
        #expect(
            parsed.references.map(\.range) == [
                SegmentByteRange(offset: firstByte, length: 400),
                SegmentByteRange(offset: firstByte + 400, length: 300),
            ])
        #expect(parsed.references.map(\.duration) == [2_000, 1_500])
        #expect(parsed.references.allSatisfy { $0.startsWithSAP })
    }

    @Test func nestedTruncatedAndMissingIndexesAreErrors() {
        let nested = Self.sidx(
            version: 0, timescale: 1_000, earliest: 0, firstOffset: 0, references: [(100, 1_000, true)])
        let nestedError = Fixtures.error { _ = try SidxBox.parse(nested, offset: 0) }
        #expect(nestedError?.code == .unsupported)
        #expect(nestedError?.message.contains("nested sidx not supported") == true)
        let truncated = Array(Self.threeSegments.prefix(60))
        #expect(Fixtures.error { _ = try SidxBox.parse(truncated, offset: 0) }?.code == .invalidIndex)
        // A box size that claims more than there is.
        var lying = Self.threeSegments
        lying[3] = 0xFF
        #expect(Fixtures.error { _ = try SidxBox.parse(lying, offset: 0) }?.code == .invalidIndex)
        let moov: [UInt8] = SidxTests.be(8, 4) + Array("moov".utf8)
        let none = Fixtures.error { _ = try SidxBox.parse(moov, offset: 0) }
        #expect(none?.code == .invalidIndex && none?.attribute == "indexRange")
        let zeroScale = Self.sidx(version: 0, timescale: 0, earliest: 0, firstOffset: 0, references: [(1, 1, false)])
        #expect(Fixtures.error { _ = try SidxBox.parse(zeroScale, offset: 0) }?.code == .invalidIndex)
    }

    /// WebM SegmentBase indexes its segments with a Matroska `Cues` element, which is not a `sidx`: refused before
    /// anything is fetched when the MIME type says WebM, and told apart by its bytes when it does not.
    @Test func webMSegmentBaseIsRefusedByName() throws {
        let webM = Fixtures.segmentBase.replacingOccurrences(of: "video/mp4", with: "video/webm")
        #expect(webM != Fixtures.segmentBase)
        let mpd = try Fixtures.mpd(webM)
        let period = mpd.periods[0]
        let error = Fixtures.error {
            _ = try SegmentAddresser.address(period.adaptationSets[0].representations[0], in: period)
        }
        #expect(error?.code == .unsupported && error?.attribute == "indexRange")
        #expect(
            error?.message.hasPrefix("WebM SegmentBase (Cues) is not supported") == true, "\(String(describing: error))"
        )
        // The Cues element (ID 1C 53 BB 6B, then an EBML size) where a sidx was expected.
        let cues: [UInt8] = [0x1C, 0x53, 0xBB, 0x6B, 0x42, 0x9A, 0xBB, 0x8F, 0xB3, 0x81, 0x00, 0xB7, 0x8A]
        let bytes = Fixtures.error { _ = try SidxBox.parse(cues, offset: 4_000) }
        #expect(bytes?.code == .unsupported)
        #expect(bytes?.message.hasPrefix("WebM SegmentBase (Cues) is not supported") == true)
        #expect(bytes?.message.contains("????") == false)
    }
}
