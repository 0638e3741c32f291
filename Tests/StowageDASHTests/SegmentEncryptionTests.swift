import StowageProtocol
import Testing

@testable import StowageDASH

/// DASH segment encryption (ISO/IEC 23009-4, `urn:mpeg:dash:sea:2012`): the parser, each segment's key and IV,
/// and the plan (keys fetched like HLS AES-128 keys, the local MPD naming them `/keys/N`).
@Suite("DASH segment encryption")
struct SegmentEncryptionTests {
    static let iv = "0x000102030405060708090A0B0C0D0E0F"

    /// A 10 s video (five 2 s segments numbered from `startNumber`) with `sea` as its ContentProtection's
    /// children.
    static func mpd(_ sea: String, startNumber: Int = 1, keySystem: Bool = true) -> String {
        let system = keySystem ? "<sea:KeySystem keySystemUri=\"urn:mpeg:dash:sea:keysys:http:2013\"/>" : ""
        return """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:sea="urn:mpeg:dash:schema:sea:2012"
                 type="static" mediaPresentationDuration="PT10S" minBufferTime="PT2S">
              <Period>
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  <ContentProtection schemeIdUri="urn:mpeg:dash:sea:2012">
                    <sea:SegmentEncryption schemeIdUri="urn:mpeg:dash:sea:aes128-cbc:2013"/>
                    \(system)
                    \(sea)
                  </ContentProtection>
                  <SegmentTemplate timescale="1000" duration="2000" media="v-$Number$.m4s" initialization="v-init.mp4"
                                   startNumber="\(startNumber)"/>
                  <Representation id="v1" bandwidth="500000" width="640" height="360"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
    }

    func keyings(_ text: String) throws -> [SegmentEncryption.Keying?] {
        let mpd = try Fixtures.mpd(text)
        let rep = mpd.periods[0].adaptationSets[0].representations[0]
        let sea = try #require(rep.contentProtections.compactMap(\.segmentEncryption).first)
        return try sea.keyings(try Fixtures.segments(mpd).segments, representation: rep)
    }

    @Test func anExplicitIVAndARelativeKeyURLAreReadForEverySegment() throws {
        let list = try keyings(Self.mpd("<sea:CryptoPeriod IV=\"\(Self.iv)\" keyUriTemplate=\"keys/k.bin\"/>"))
        #expect(list.count == 5)
        #expect(list.allSatisfy { $0?.keyURI == "http://origin.test/movie/keys/k.bin" })
        #expect(list.allSatisfy { $0?.iv == Array(0..<16) })
        #expect(list.compactMap { $0?.number } == [1, 2, 3, 4, 5])
    }

    @Test func withoutAnIVEachSegmentsNumberIsItsIV() throws {
        let list = try keyings(Self.mpd("<sea:CryptoPeriod keyUriTemplate=\"https://k.test/a\"/>", startNumber: 7))
        #expect(list[0]?.iv == nil && list[0]?.number == 7)
        #expect(list[2]?.effectiveIV == [UInt8](repeating: 0, count: 15) + [9])
        #expect(SegmentEncryption.iv(number: 0x0102) == [UInt8](repeating: 0, count: 14) + [1, 2])
        #expect(SegmentEncryption.iv("000102030405060708090a0b0c0d0e0f") == Array(0..<16), "0x is optional")
    }

    @Test func cryptoPeriodsRotateKeysAndNumberTheirTemplatesByTheirFirstSegment() throws {
        let list = try keyings(
            Self.mpd(
                """
                <sea:CryptoPeriod numSegments="2" keyUriTemplate="k-$Number$-$RepresentationID$.bin" IV="\(Self.iv)"/>
                <sea:CryptoPeriod offset="1" keyUriTemplate="k-$Number%03d$.bin"/>
                """, startNumber: 10))
        #expect(
            list.map { $0?.keyURI } == [
                "http://origin.test/movie/k-10-v1.bin", "http://origin.test/movie/k-10-v1.bin", nil,
                "http://origin.test/movie/k-013.bin", "http://origin.test/movie/k-013.bin",
            ], "an offset leaves segments clear")
        let timeline = try keyings(
            Self.mpd(
                "<sea:CryptoTimeline numCryptoPeriods=\"3\" numSegments=\"2\" keyUriTemplate=\"t$Number$\"/>"))
        #expect(
            timeline.map { $0?.keyURI.split(separator: "/").last } == ["t1", "t1", "t3", "t3", "t5"],
            "a CryptoTimeline is its periods one after another")
    }

    @Test func aMissingKeyURLIsAnErrorNamingIt() throws {
        let error = #expect(throws: DASHError.self) {
            try Fixtures.mpd(Self.mpd("<sea:CryptoPeriod IV=\"\(Self.iv)\"/>"))
        }
        #expect(error?.code == .missingAttribute)
        #expect(error?.description.contains("sea:CryptoPeriod@keyUriTemplate is missing") == true, "\(error!)")
        let none = #expect(throws: DASHError.self) { try Fixtures.mpd(Self.mpd("")) }
        #expect(none?.description.contains("no sea:CryptoPeriod") == true)
    }

    @Test func whatCannotBeDecryptedLikeAPlayerIsRefusedByName() throws {
        let cases: [(String, String)] = [
            (Self.mpd("<sea:CryptoPeriod IV=\"0x1234\" keyUriTemplate=\"k\"/>"), "@IV='0x1234' is not a 16-byte IV"),
            (Self.mpd("<sea:CryptoPeriod ivUriTemplate=\"iv\" keyUriTemplate=\"k\"/>"), "ivUriTemplate"),
            (
                Self.mpd("<sea:CryptoPeriod keyUriTemplate=\"k\"/>")
                    .replacingOccurrences(of: "aes128-cbc:2013", with: "aes128-ctr:2013"),
                "sea:SegmentEncryption 'urn:mpeg:dash:sea:aes128-ctr:2013' is not supported"
            ),
            (
                Self.mpd("<sea:CryptoPeriod keyUriTemplate=\"k\"/>")
                    .replacingOccurrences(of: "keysys:http:2013", with: "keysys:other"), "sea:KeySystem"
            ),
            (
                Self.mpd("<sea:CryptoPeriod keyUriTemplate=\"a\"/><sea:CryptoPeriod keyUriTemplate=\"b\"/>"),
                "only the last crypto period may run to the end"
            ),
            (Self.mpd("<sea:CryptoPeriod keyUriTemplate=\"ftp://k.test/k\"/>"), "not an http(s) URL"),
        ]
        for (text, words) in cases {
            let error = #expect(throws: DASHError.self) {
                let mpd = try Fixtures.mpd(text)
                _ = try Fixtures.plan(text)
                _ = mpd
            }
            #expect(error?.description.contains(words) == true, "\(String(describing: error)) lacks '\(words)'")
        }
        #expect(throws: Never.self) {
            try Fixtures.mpd(Self.mpd("<sea:CryptoPeriod keyUriTemplate=\"k\"/>", keySystem: false))
        }
    }

    @Test func thePlanFetchesEachKeyOnceAndTheLocalMPDNamesThemKeysN() throws {
        let text = Self.mpd(
            """
            <sea:CryptoPeriod numSegments="2" IV="\(Self.iv)" keyUriTemplate="https://k.test/a"/>
            <sea:CryptoPeriod offset="1" numSegments="1" keyUriTemplate="https://k.test/a"/>
            <sea:CryptoPeriod keyUriTemplate="https://k.test/b?id=$Number$&amp;x=1"/>
            """, startNumber: 3)
        let plan = try Fixtures.plan(text)
        #expect(
            plan.keys == [
                PlannedKey(uri: "https://k.test/a", method: "AES-128"),
                PlannedKey(uri: "https://k.test/b?id=7&x=1", method: "AES-128"),
            ])
        let protection = try #require(plan.protection, "protection is shown, not null")
        #expect(protection.scheme == "aes-128" && !protection.deviceOnly && protection.systems.isEmpty)
        #expect(
            plan.resources.map(\.encrypted) == [false, true, true, false, true, true],
            "the init segment and the offset's segment are clear")
        let explicit = "000102030405060708090a0b0c0d0e0f"
        let derived = { (n: Int) in String(repeating: "0", count: 31) + String(n, radix: 16) }
        #expect(
            plan.resources.map(\.cipher) == [
                nil, SegmentCipher(key: 0, iv: explicit), SegmentCipher(key: 0, iv: explicit), nil,
                SegmentCipher(key: 0, iv: derived(6)), SegmentCipher(key: 1, iv: derived(7)),
            ], "each encrypted segment keeps its key and IV, so its container is checked decrypted")
        let local = plan.masterPlaylist
        #expect(!local.contains("k.test"), "\(local)")
        // Local segments are numbered from 1, the source's from 3: derived IVs are written out where they differ.
        let expected = [
            "<sea:CryptoPeriod numSegments=\"2\" IV=\"0x000102030405060708090a0b0c0d0e0f\" "
                + "keyUriTemplate=\"/keys/0\"/>",
            "<sea:CryptoPeriod offset=\"1\" numSegments=\"1\" IV=\"0x00000000000000000000000000000006\" "
                + "keyUriTemplate=\"/keys/0\"/>",
            "<sea:CryptoPeriod numSegments=\"1\" IV=\"0x00000000000000000000000000000007\" "
                + "keyUriTemplate=\"/keys/1\"/>",
        ]
        for line in expected { #expect(local.contains(line), "\(local)") }
        // The local MPD reads back to the same keys and IVs for the same segments.
        let reread = try MPD(text: local, url: "http://127.0.0.1:9/manifest.mpd")
        let rep = reread.periods[0].adaptationSets[0].representations[0]
        let sea = try #require(rep.contentProtections.compactMap(\.segmentEncryption).first)
        let segments = try Fixtures.segments(reread).segments
        let ivs = try sea.keyings(segments, representation: rep).map { $0?.effectiveIV }
        let source = try keyings(text).map { $0?.effectiveIV }
        #expect(ivs == source)
    }

    @Test func derivedIVsStayDerivedWhenTheNumbersAgree() throws {
        let plan = try Fixtures.plan(Self.mpd("<sea:CryptoPeriod keyUriTemplate=\"https://k.test/a\"/>"))
        #expect(plan.masterPlaylist.contains("<sea:CryptoPeriod numSegments=\"5\" keyUriTemplate=\"/keys/0\"/>"))
        #expect(plan.masterPlaylist.contains("xmlns:sea=\"urn:mpeg:dash:schema:sea:2012\""))
        #expect(plan.masterPlaylist.contains("<sea:KeySystem keySystemUri=\"urn:mpeg:dash:sea:keysys:http:2013\"/>"))
    }
}
