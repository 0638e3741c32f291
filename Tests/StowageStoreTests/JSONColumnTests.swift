import Foundation
import GRDB
import StowageLicensing
import StowageProtocol
import Testing

@testable import StowageStore

/// The title's JSON columns were `String`s the scheduler encoded and decoded by hand (a plain `JSONEncoder`, whose
/// key order is not fixed on Linux); they are typed now. A store written the old way must read back, and what is
/// written now must be the same JSON.
@Suite("Title JSON columns")
struct JSONColumnTests {
    /// Each column as an older scheduler may have written it.
    static let selection = #"{"bitrate":3000000,"audio":["en"]}"#
    static let headers = #"[{"name":"Cookie","value":"a=b"}]"#
    static let requestedTerms = #"{"kind":"rental","rentalSeconds":86400}"#
    static let licenseTerms =
        #"{"kind":"rental","requestedAt":5,"expiresAt":86405,"forceExpired":false,"renewalSuggested":false}"#
    static let record = #"{"durationSeconds":60,"from":"live"}"#

    @Test(arguments: Engine.allCases) func aRecordWrittenTheOldWayReadsBackTypedAndIsRewrittenUnchanged(
        _ engine: Engine
    ) throws {
        let store = try engine.store()
        try store.db.write { db in
            try db.execute(
                """
                INSERT INTO title (token, url, state, priority, selection, headers, requestedAt, planned,
                                   requestedTerms, licenseTerms, record)
                VALUES ('old', 'http://h/m.m3u8', 'downloading', 0, ?, ?, 1, 0, ?, ?, ?)
                """, [Self.selection, Self.headers, Self.requestedTerms, Self.licenseTerms, Self.record])
        }
        let title = try #require(try store.title("old"))
        #expect(title.selection == Selection(bitrate: 3_000_000, audio: ["en"]))
        #expect(title.headers.map(\.name) == ["Cookie"])
        #expect(title.requestedTerms == RequestedTerms(kind: .rental, rentalSeconds: 86_400))
        #expect(title.licenseTerms == LicenseTerms(kind: .rental, requestedAt: 5, expiresAt: 86_405))
        #expect(title.record == RecordRequest(durationSeconds: 60, from: .live))
        #expect(title.protection == nil)

        try store.update(title)
        let row = try #require(
            try store.db.read {
                try $0.rows("SELECT selection, headers, requestedTerms, licenseTerms, record, protection FROM title")
                    .first
            })
        /// The same JSON, whatever the order of its keys.
        func sameJSON(_ a: String?, _ b: String) throws -> Bool {
            guard let a else { return false }
            let decode = { (text: String) in try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSObject }
            return try decode(a) == decode(b)
        }
        #expect(row["protection"] as String? == nil)
        #expect(try sameJSON(row["selection"], Self.selection))
        #expect(try sameJSON(row["headers"], Self.headers))
        #expect(try sameJSON(row["requestedTerms"], Self.requestedTerms))
        #expect(try sameJSON(row["licenseTerms"], Self.licenseTerms))
        #expect(try sameJSON(row["record"], Self.record))
    }
}
