import Foundation
import Testing

@testable import StowageProtocol

@Suite("Packed lists")
struct PackedCodingTests {
    static let items = [
        FetchWork(url: "http://h/a.ts", headers: [], rangeOffset: nil, rangeLength: nil, path: "t/a.ts"),
        {
            var w = FetchWork(
                url: "https://cdn.example/v/é.m4s?sig=1", headers: [Header(name: "Cookie", value: "a=b; c=d")],
                rangeOffset: 0, rangeLength: Int64.max, path: "t/v/seg-00001.m4s", container: .fmp4)
            w.alternates = ["https://b.example/v/é.m4s", ""]
            w.fresh = true
            w.decryption = SegmentDecryption(key: Data(repeating: 7, count: 16), iv: Data(repeating: 9, count: 16))
            return w
        }(),
        {
            var w = FetchWork(
                url: "u", headers: [], rangeOffset: -5, rangeLength: 1 << 40, path: "p", container: .other)
            w.fresh = false
            return w
        }(),
    ]

    static let results: [FetchItemResult] = [
        .fetched(FetchReport(bytes: 3948, contentLength: 3948, sha256: String(repeating: "ab", count: 32))),
        .fetched(FetchReport(bytes: 0, contentLength: nil, sha256: nil)),
        .fetched(
            {
                // Served by an alternate (another pathway), after the file's own URL failed.
                var r = FetchReport(bytes: 10, contentLength: 10, sha256: nil)
                r.servedBy = 2
                r.fellOver = "http://a/s.ts: connection refused"
                return r
            }()),
        .failed(
            {
                var f = TaskFailure(code: .httpStatus, message: "http://h/x answered HTTP 503", retryable: true)
                f.retryAfter = 2.5
                f.host = "h"
                f.status = 503
                f.madeProgress = true
                f.endpoint = "h:80"
                return f
            }()),
        .notAttempted,
    ]

    static let plan = ResolvedPlan(
        masterPlaylist: "#EXTM3U\n", renditions: [],
        resources: [
            PlannedResource(
                kind: .initSection, rendition: 0, url: "http://h/init.mp4", rangeOffset: 0, rangeLength: 720,
                localPath: "video/init.mp4", container: .fmp4, encrypted: false, duration: 0),
            {
                var r = PlannedResource(
                    kind: .segment, rendition: 3, url: "http://h/s.ts", rangeOffset: nil, rangeLength: nil,
                    localPath: "video/seg-000001.ts", container: .mpegTS, encrypted: true, duration: 6.006)
                r.alternates = ["http://b/s.ts"]
                r.cipher = SegmentCipher(key: 2, iv: String(repeating: "0", count: 31) + "9")
                return r
            }(),
        ], bytesEstimate: 123, keys: [PlannedKey(uri: "k", method: "AES-128")],
        bookmarks: [Bookmark(position: 1.5, label: "x")])
    static let steeredPlan = {
        var plan = Self.plan
        plan.pathways = [
            PlannedPathway(name: "CDN-A", origins: ["http://h"]), PlannedPathway(name: "b", origins: ["http://b"]),
        ]
        return plan
    }()

    private func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    @Test func batchesReportsAndPlansRoundTripPacked() throws {
        let batch = FetchBatch(items: Self.items)
        let json = String(decoding: try JSONEncoder().encode(batch), as: UTF8.self)
        #expect(json.contains("packedItems") && !json.contains("\"items\""))
        #expect(try roundTrip(batch) == batch)
        #expect(try roundTrip(FetchBatch(items: [])) == FetchBatch(items: []))
        #expect(try roundTrip(FetchBatchReport(results: Self.results)) == FetchBatchReport(results: Self.results))
        let plan = try roundTrip(Self.plan)
        #expect(plan == Self.plan)
        #expect(try roundTrip(Self.steeredPlan) == Self.steeredPlan)
        #expect(String(decoding: try JSONEncoder().encode(Self.plan), as: UTF8.self).contains("packedResources"))
    }

    @Test func aPlanOfTenThousandSegmentsIsOneString() throws {
        var plan = Self.plan
        plan.resources = (0..<10_000).map {
            PlannedResource(
                kind: .segment, rendition: 0, url: "http://127.0.0.1:8080/small/s\($0).ts", rangeOffset: nil,
                rangeLength: nil, localPath: "video/seg-\($0).ts", container: .mpegTS, encrypted: false, duration: 2)
        }
        let same = try roundTrip(plan) == plan
        #expect(same)
    }

    @Test func jsonListsAreStillRead() throws {
        let items = #"{"items":[{"url":"http://h/a.ts","headers":[],"path":"t/a.ts","container":"ts"}]}"#
        let batch = try JSONDecoder().decode(FetchBatch.self, from: Data(items.utf8))
        #expect(batch.items.map(\.url) == ["http://h/a.ts"] && batch.items[0].container == .mpegTS)
        let results = #"{"results":[{"notAttempted":{}}]}"#
        #expect(try JSONDecoder().decode(FetchBatchReport.self, from: Data(results.utf8)).results == [.notAttempted])
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.plan)) as! [String: Any]
        json["packedResources"] = nil
        json["resources"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.plan.resources))
        let plan = try JSONDecoder().decode(ResolvedPlan.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(plan == Self.plan)
    }

    /// Every truncation and every single-byte corruption of a packed list is an error naming the field, or
    /// (a flipped byte inside a string) another valid list: never a trap.
    @Test func damagedListsAreErrorsNotTraps() throws {
        var w = PackedWriter(count: Self.items.count)
        for item in Self.items { item.pack(into: &w) }
        let bytes = w.bytes
        func decode(_ b: [UInt8]) throws -> FetchBatch {
            let json = #"{"packedItems":"\#(Data(b).base64EncodedString())"}"#
            return try JSONDecoder().decode(FetchBatch.self, from: Data(json.utf8))
        }
        // The items alone (decryption keys travel beside them, in `packedDecryptions`).
        #expect(
            try decode(bytes).items
                == Self.items.map {
                    var w = $0
                    w.decryption = nil
                    return w
                })
        for n in 0..<bytes.count {
            #expect(throws: DecodingError.self) { try decode(Array(bytes[..<n])) }
        }
        #expect(throws: DecodingError.self) { try decode(bytes + [0]) }
        for i in 0..<bytes.count {
            for flip: UInt8 in [0x01, 0x80, 0xff] {
                var b = bytes
                b[i] ^= flip
                _ = try? decode(b)
            }
        }
        do {
            _ = try decode([PackedWriter.format, 0xff, 0xff, 0xff, 0xff, 0x0f])
            Issue.record("a count larger than the bytes was accepted")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("count"))
            #expect(context.codingPath.map(\.stringValue) == ["packedItems"])
        }
        do {
            _ = try decode([2, 0])
            Issue.record("another format was accepted")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("format 2"))
        }
    }

    @Test func varintsCoverTheWholeRange() throws {
        let values: [Int64] = [0, 1, -1, 63, -64, 64, 127, 128, 300, -300, Int64.max, Int64.min, 1 << 40]
        var w = PackedWriter(count: values.count)
        for v in values { w.int(v) }
        var r = try PackedReader(Data(w.bytes))
        #expect(r.count == values.count)
        for v in values { #expect(try r.int("v") as Int64 == v) }
        try r.end()
        var overlong = try PackedReader(Data([PackedWriter.format, 1] + Array(repeating: 0xff, count: 10) + [0x01]))
        #expect(throws: PackedError.self) { try overlong.uint("n") }
    }
}
