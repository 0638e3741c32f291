import Foundation

// A fetch batch's items and results travel packed (``PackedWriter``): `fetchBatch {packedItems}` and
// `fetchedBatch {packedResults}`. The JSON lists (`items`, `results`) are still read.

extension FetchBatch {
    private enum PackedKeys: String, CodingKey { case items, packedItems, packedDecryptions }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: PackedKeys.self)
        if c.contains(.packedItems) {
            items = try c.decodePacked(forKey: .packedItems) { (r) throws(PackedError) in try FetchWork(packed: &r) }
        } else {
            items = try c.decode([FetchWork].self, forKey: .items)
        }
        // Decryption keys travel beside the packed items (a reader that predates them ignores the key).
        guard c.contains(.packedDecryptions) else { return }
        let decryptions = try c.decodePacked(forKey: .packedDecryptions) {
            (r) throws(PackedError) -> SegmentDecryption? in
            let keyText = try r.optionalString("decryption key")
            let ivText = try r.optionalString("decryption IV")
            guard let keyText, let ivText else { return nil }
            guard let key = Data(base64Encoded: keyText), let iv = Data(base64Encoded: ivText) else {
                throw PackedError("decryption: not base64")
            }
            return SegmentDecryption(key: key, iv: iv)
        }
        guard decryptions.count == items.count else {
            throw DecodingError.dataCorruptedError(
                forKey: .packedDecryptions, in: c,
                debugDescription: "\(decryptions.count) decryptions for \(items.count) items")
        }
        for i in items.indices { items[i].decryption = decryptions[i] }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: PackedKeys.self)
        var w = PackedWriter(count: items.count)
        for item in items { item.pack(into: &w) }
        try c.encode(Data(w.bytes), forKey: .packedItems)
        guard items.contains(where: { $0.decryption != nil }) else { return }
        var d = PackedWriter(count: items.count)
        for item in items {
            d.optional(item.decryption?.key.base64EncodedString())
            d.optional(item.decryption?.iv.base64EncodedString())
        }
        try c.encode(Data(d.bytes), forKey: .packedDecryptions)
    }
}

extension FetchBatchReport {
    private enum PackedKeys: String, CodingKey { case results, packedResults }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: PackedKeys.self)
        if c.contains(.packedResults) {
            results = try c.decodePacked(forKey: .packedResults) { (r) throws(PackedError) in
                try FetchItemResult(packed: &r)
            }
        } else {
            results = try c.decode([FetchItemResult].self, forKey: .results)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: PackedKeys.self)
        var w = PackedWriter(count: results.count)
        for result in results { result.pack(into: &w) }
        try c.encode(Data(w.bytes), forKey: .packedResults)
    }
}

extension FetchWork {
    /// url, headers (count, then name and value each), rangeOffset?, rangeLength?, path, container?, alternates?,
    /// fresh?
    func pack(into w: inout PackedWriter) {
        w.string(url)
        w.uint(UInt64(headers.count))
        for h in headers {
            w.string(h.name)
            w.string(h.value)
        }
        w.optional(rangeOffset)
        w.optional(rangeLength)
        w.string(path)
        w.optional(container?.rawValue)
        w.optional(alternates)
        w.optional(fresh)
    }

    init(packed r: inout PackedReader) throws(PackedError) {
        let url = try r.string("url")
        let n = try r.uint("headers")
        guard n <= 1000 else { throw PackedError("headers: \(n) is too many") }
        var headers: [Header] = []
        for _ in 0..<n {
            headers.append(Header(name: try r.string("header name"), value: try r.string("header value")))
        }
        self.init(
            url: url, headers: headers, rangeOffset: try r.optionalInt("rangeOffset"),
            rangeLength: try r.optionalInt("rangeLength"), path: try r.string("path"))
        if try r.bool("container") { container = try r.value(Container.self, "container") }
        alternates = try r.optionalStrings("alternates")
        fresh = try r.optionalBool("fresh")
    }
}

extension FetchItemResult {
    /// A tag (0 fetched, 1 failed, 2 not attempted, 3 fetched from an alternate), then for `fetched` bytes,
    /// contentLength?, sha256? (and for 3 the alternate's position and fellOver?), and for
    /// `failed` the failure's JSON (rare: its many optional fields are not worth a layout of their own).
    func pack(into w: inout PackedWriter) {
        switch self {
        case .fetched(let report):
            w.uint(report.servedBy == nil ? 0 : 3)
            w.int(report.bytes)
            w.optional(report.contentLength)
            w.optional(report.sha256)
            if let servedBy = report.servedBy {
                w.uint(UInt64(max(0, servedBy)))
                w.optional(report.fellOver)
            }
        case .failed(let failure):
            w.uint(1)
            let json = (try? JSONEncoder().encode(failure)) ?? Data()
            w.string(String(decoding: json, as: UTF8.self))
        case .notAttempted:
            w.uint(2)
        }
    }

    init(packed r: inout PackedReader) throws(PackedError) {
        switch try r.uint("result") {
        case let tag where tag == 0 || tag == 3:
            var report = FetchReport(
                bytes: try r.int("bytes"), contentLength: try r.optionalInt("contentLength"),
                sha256: try r.optionalString("sha256"))
            if tag == 3 {
                let index = try r.uint("servedBy")
                guard index <= 64 else { throw PackedError("servedBy: \(index) is not an alternate's position") }
                report.servedBy = Int(index)
                report.fellOver = try r.optionalString("fellOver").map { String($0.prefix(1000)) }
            }
            self = .fetched(report)
        case 1:
            let json = try r.string("failure")
            do {
                self = .failed(try JSONDecoder().decode(TaskFailure.self, from: Data(json.utf8)))
            } catch {
                throw PackedError("failure: not a TaskFailure (\(json.prefix(60)))")
            }
        case 2: self = .notAttempted
        case let tag: throw PackedError("result: unknown tag \(tag)")
        }
    }
}
