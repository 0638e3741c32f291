import Foundation
import StowageProtocol
import Testing

@testable import StowageDASH

/// A live DASH recording across Periods, reload by reload on an injected origin clock: a Period that appears
/// carries the recording on (chosen by the same selection rules, its own Representation ids, its files under
/// `p1/`), one that ends is not the end until the MPD says the presentation ended, `--duration` counts every
/// Period, a key change at a Period is new keys, and the local manifest has one Period per recorded Period.
@Suite("DASH live recording across Periods")
struct LiveDASHPeriodsTests {
    static let ast = 1_700_000_000.0
    static let url = "http://origin.test/live/stream.mpd"

    /// A Period of 2-second `$Number$` segments: a 360p and a 720p video (`<id>-low`, `<id>-high`) and one audio,
    /// protected with Clear Key under `kid` when given.
    func period(_ id: String, start: Int, duration: Int? = nil, kid: String? = nil) -> String {
        let protection =
            kid.map {
                """
                <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" \
                cenc:default_KID="\($0)"/>
                <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e">
                  <clearkey:Laurl Lic_type="EME-1.0">https://license.test/clearkey</clearkey:Laurl>
                </ContentProtection>
                """
            } ?? ""
        return """
              <Period id="\(id)" start="PT\(start)S"\(duration.map { " duration=\"PT\($0)S\"" } ?? "")>
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  \(protection)
                  <SegmentTemplate timescale="1000" duration="2000" startNumber="1"
                    media="\(id)/$RepresentationID$-$Number$.m4s" initialization="\(id)/$RepresentationID$-init.mp4"/>
                  <Representation id="\(id)-high" bandwidth="2000000" width="1280" height="720"/>
                  <Representation id="\(id)-low" bandwidth="500000" width="640" height="360"/>
                </AdaptationSet>
                <AdaptationSet contentType="audio" mimeType="audio/mp4" codecs="mp4a.40.2" lang="en">
                  <SegmentTemplate timescale="1000" duration="2000" startNumber="1"
                    media="\(id)/a-$Number$.m4s" initialization="\(id)/a-init.mp4"/>
                  <Representation id="\(id)-audio" bandwidth="64000"/>
                </AdaptationSet>
              </Period>

            """
    }

    func mpd(_ periods: String, type: String = "dynamic", extra: String = "") throws -> MPD {
        let text = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" \
            xmlns:clearkey="http://dashif.org/guidelines/clearKey" type="\(type)" \
            availabilityStartTime="2023-11-14T22:13:20Z" minimumUpdatePeriod="PT1S"\(extra)>
              <BaseURL>http://origin.test/live/</BaseURL>
            \(periods)</MPD>
            """
        return try MPD(liveData: Data(text.utf8), url: Self.url)
    }

    /// The first Period's starting states, as the plan stores them.
    func start(_ mpd: MPD, selection: Selection = Selection()) throws -> (states: [LiveDASHRendition], template: String)
    {
        let planned = try LiveDASHPlanner.plan(mpd: mpd, selection: selection)
        return (planned.states, planned.plan.masterPlaylist ?? "")
    }

    func reload(
        _ states: [LiveDASHRendition], _ template: String, _ mpd: MPD, at seconds: Double,
        record: RecordRequest = RecordRequest(), selection: Selection = Selection(), keys: Set<String> = []
    ) throws -> LiveDASHPeriods.Reload {
        try LiveDASHPeriods.reload(
            states: states, template: template, mpd: mpd, now: Self.ast + seconds, record: record,
            selection: selection, knownKeyIDs: keys)
    }

    func urls(_ reload: LiveDASHPeriods.Reload, _ position: Int) -> [String] {
        (reload.deltas[position]?.entries ?? []).filter { !$0.isGap }.map(\.resource.url)
    }

    @Test func aNewPeriodCarriesTheRecordingOnUntilTheMPDTurnsStatic() throws {
        let first = try mpd(period("news", start: 0))
        let (states, template) = try start(first)
        #expect(states.map(\.representationID) == ["news-low", "news-audio"], "the lowest video and the audio")
        let early = try reload(states, template, first, at: 4.5)
        #expect(
            urls(early, 0) == [
                "http://origin.test/live/news/news-low-1.m4s", "http://origin.test/live/news/news-low-2.m4s",
            ])
        #expect(early.newPeriods.isEmpty && early.end == nil)

        // An ad break begins at 6 s: a Period with other ids appears; the programme's Period ends there.
        let changed = try mpd(period("news", start: 0) + period("ad", start: 6))
        let next = try reload(early.states, template, changed, at: 8.5)
        #expect(urls(next, 0) == ["http://origin.test/live/news/news-low-3.m4s"], "the programme's last segment")
        #expect(next.states[0].ended && next.states[0].periodEnded == true)
        let entered = try #require(next.newPeriods.first)
        #expect(next.newPeriods.count == 1 && entered.firstRendition == 2)
        #expect(
            entered.plan.renditions.map(\.localPath) == ["p1/video-0-1", "p1/audio-1-0-en"],
            "\(entered.plan.renditions)")
        #expect(next.states.map(\.representationID) == ["news-low", "news-audio", "ad-low", "ad-audio"])
        #expect(
            entered.plan.resources.map(\.url) == [
                "http://origin.test/live/ad/ad-low-init.mp4", "http://origin.test/live/ad/a-init.mp4",
            ])
        #expect(entered.plan.resources.map(\.rendition) == [2, 3], "the new renditions follow the earlier ones")
        #expect(urls(next, 2) == ["http://origin.test/live/ad/ad-low-1.m4s"], "taken in the same reload")
        #expect(next.deltas[2]?.entries.first?.resource.localPath == "p1/video-0-1/seg-00001.m4s")
        #expect(next.states[2].secondsBefore == 6 && next.states[2].recordingSeconds == 8)
        #expect(next.end == nil, "a Period ending is not the end")

        let ended = try mpd(
            period("news", start: 0) + period("ad", start: 6), type: "static",
            extra: #" mediaPresentationDuration="PT10S""#)
        let last = try reload(next.states, (entered.plan.masterPlaylist ?? ""), ended, at: 10.5)
        #expect(urls(last, 2) == ["http://origin.test/live/ad/ad-low-2.m4s"])
        #expect(last.end == "the MPD turned static" && last.newPeriods.isEmpty)

        // The local manifest: one Period per recorded Period, the second starting where the first ended.
        var lines: [Int: [String]] = [:]
        for r in [early, next, last] { for (p, d) in r.deltas { lines[p, default: []] += d.lines } }
        let tracks = last.states.enumerated().map { p, s in
            LiveDASHManifest.Track(
                presentationTimeOffset: s.firstTime ?? 0, lines: lines[p] ?? [], seconds: s.seconds, period: s.ordinal)
        }
        let text = LiveDASHManifest.render((entered.plan.masterPlaylist ?? ""), tracks: tracks)
        #expect(!text.contains("{{"), "\(text)")
        #expect(text.contains(#"<Period id="news" start="PT0.000S" duration="PT6.000S">"#), "\(text)")
        #expect(text.contains(#"<Period id="ad" start="PT6.000S" duration="PT4.000S">"#), "\(text)")
        #expect(text.contains(#"mediaPresentationDuration="PT10.000S""#), "\(text)")
        let local = try MPD(text: text, url: "http://127.0.0.1/manifest.mpd")
        #expect(local.periods.map(\.start) == [0, 6] && local.periods.map(\.duration) == [6, 4])
        let ad = try #require(local.periods.last?.adaptationSets.first?.representations.first)
        guard case .segments(let segments) = try SegmentAddresser.address(ad, in: try #require(local.periods.last))
        else { throw DASHError.missing("SegmentTemplate", "media") }
        #expect(
            segments.segments.map(\.location.url)
                == ["seg-00001.m4s", "seg-00002.m4s"].map {
                    "http://127.0.0.1/p1/video-0-1/" + $0
                })
    }

    @Test func aPeriodThatEndsBeforeTheNextIsAnnouncedIsAWait() throws {
        let first = try mpd(period("news", start: 0, duration: 4))
        let (states, template) = try start(first)
        let over = try reload(states, template, first, at: 5)
        #expect(over.states.allSatisfy { $0.ended && $0.periodEnded == true })
        #expect(over.end == nil && over.newPeriods.isEmpty, "the MPD stays dynamic: the next Period is awaited")
        let again = try reload(over.states, template, first, at: 7)
        #expect(again.end == nil && !again.changed)
        // The next Period begins at 4 s; by 9 s two of its segments are complete.
        let announced = try mpd(period("news", start: 0, duration: 4) + period("film", start: 4))
        let carried = try reload(again.states, template, announced, at: 9)
        #expect(carried.newPeriods.count == 1 && urls(carried, 2).count == 2, "from the Period's first segment")
        // Ended without a next Period: the presentation's end.
        let closing = try mpd(period("news", start: 0, duration: 4), extra: #" mediaPresentationDuration="PT4S""#)
        let done = try reload(over.states, template, closing, at: 7)
        #expect(done.end == "the MPD got a mediaPresentationDuration")
    }

    @Test func theRequestedDurationCountsEveryPeriod() throws {
        let both = try mpd(period("news", start: 0) + period("ad", start: 4))
        let (states, template) = try start(both)
        let reload = try reload(states, template, both, at: 20, record: RecordRequest(durationSeconds: 8))
        #expect(urls(reload, 0).count == 2 && urls(reload, 2).count == 2, "4 s of each")
        #expect(reload.end == "the requested duration was recorded", "\(String(describing: reload.end))")
        let atTheBoundary = try self.reload(
            states, template, both, at: 20, record: RecordRequest(durationSeconds: 4))
        #expect(atTheBoundary.newPeriods.isEmpty && atTheBoundary.end == "the requested duration was recorded")
    }

    @Test func theSameSelectionRulesChooseEachPeriodsRenditions() throws {
        let both = try mpd(period("news", start: 0) + period("ad", start: 4))
        let selection = Selection(bitrate: 3_000_000)
        let (states, template) = try start(both, selection: selection)
        let reload = try reload(states, template, both, at: 9, selection: selection)
        #expect(reload.states.map(\.representationID) == ["news-high", "news-audio", "ad-high", "ad-audio"])
    }

    @Test func aKeyChangeAtAPeriodIsNewKeysOnly() throws {
        let kidA = "10000000-1000-1000-1000-10000000000a"
        let kidB = "20000000-2000-2000-2000-20000000000b"
        let both = try mpd(period("news", start: 0, kid: kidA) + period("ad", start: 4, kid: kidB))
        let planned = try LiveDASHPlanner.plan(mpd: both, selection: Selection())
        let known = Set(planned.plan.keys.compactMap(\.keyID))
        #expect(known == ["0x10000000100010001000" + "10000000000a"], "\(known)")
        let reload = try reload(
            planned.states, planned.plan.masterPlaylist ?? "", both, at: 9, keys: known)
        let entered = try #require(reload.newPeriods.first)
        #expect(entered.plan.keys.map(\.keyID) == ["0x20000000200020002000" + "20000000000b"], "only the new KID")
        #expect(entered.plan.keys.map(\.uri) == ["https://license.test/clearkey"], "from the Period's Laurl")
        #expect(
            (entered.plan.masterPlaylist ?? "").contains("20000000-2000-2000-2000-20000000000b"),
            "the new Period keeps its KID")
        let again = try self.reload(
            planned.states, planned.plan.masterPlaylist ?? "", both, at: 9,
            keys: known.union([
                "0x2000000020002000200020000000000b"
            ]))
        #expect(again.newPeriods.first?.plan.keys.isEmpty == true, "a KID met before is not asked for again")
    }
}
