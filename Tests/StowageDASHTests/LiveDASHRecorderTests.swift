import Foundation
import StowageProtocol
import Testing

@testable import StowageDASH

/// A live DASH recording reload by reload on an injected origin clock: `$Number$`+`@duration` and
/// `$Time$`+`SegmentTimeline`, `--from start|live`, the time-shift window's gaps, the next reload, the end (the MPD
/// turning static, a `mediaPresentationDuration`, the requested duration), a box clock minutes off corrected by the
/// origin's, and the local manifest the recorded timelines fill.
@Suite("DASH live recorder")
struct LiveDASHRecorderTests {
    static let ast = 1_700_000_000.0
    static let url = "http://origin.test/live/stream.mpd"

    func numbered(
        type: String = "dynamic", timing: String = #"timeShiftBufferDepth="PT10S" minimumUpdatePeriod="PT1S""#
    ) throws -> MPD {
        try mpd(
            type: type, timing: timing,
            template: """
                <SegmentTemplate timescale="1000" duration="2000" startNumber="5" media="v-$Number$.m4s"
                  initialization="v-init.mp4"/>
                """)
    }

    func timeline(entries: String = #"<S t="90000" d="180000" r="9"/>"#) throws -> MPD {
        try mpd(
            type: "dynamic", timing: #"minimumUpdatePeriod="PT1S""#,
            template: """
                <SegmentTemplate timescale="90000" presentationTimeOffset="90000" media="v-$Time$.m4s"
                  initialization="v-init.mp4"><SegmentTimeline>\(entries)</SegmentTimeline></SegmentTemplate>
                """)
    }

    func mpd(type: String, timing: String, template: String) throws -> MPD {
        let text = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="\(type)" availabilityStartTime="2023-11-14T22:13:20Z" \
            \(timing)>
              <BaseURL>http://origin.test/live/</BaseURL>
              <Period id="p0" start="PT0S">
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  \(template)
                  <Representation id="v" bandwidth="500000" width="640" height="360"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        return try MPD(liveData: Data(text.utf8), url: Self.url)
    }

    func start(_ mpd: MPD) throws -> LiveDASHRendition {
        let planned = try LiveDASHPlanner.plan(mpd: mpd, selection: Selection())
        #expect(planned.plan.resources.map(\.localPath) == ["p0/video-0-0/init.mp4"], "the init segment is planned")
        #expect(planned.plan.resources.first?.url == "http://origin.test/live/v-init.mp4")
        return try #require(planned.states.first)
    }

    func urls(_ delta: LiveDASHRecorder.Delta) -> [String] {
        delta.entries.filter { !$0.isGap }.map(\.resource.url)
    }

    @Test func numberedSegmentsAreTakenAsTheyExistAndWhatLeftTheWindowIsAGap() throws {
        let mpd = try numbered()
        var state = try start(mpd)
        let first = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: mpd, now: Self.ast + 10.5, record: RecordRequest())
        #expect(urls(first) == (5...9).map { "http://origin.test/live/v-\($0).m4s" }, "complete at 2 … 10 s")
        #expect(first.entries.map(\.resource.localPath).first == "p0/video-0-0/seg-00001.m4s")
        #expect(first.lines.first == #"<S t="0" d="2000"/>"# && first.lines.count == 5)
        #expect(state.targetDuration == 1, "minimumUpdatePeriod is shorter than a segment")
        let second = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: mpd, now: Self.ast + 14.5, record: RecordRequest())
        #expect(urls(second) == ["http://origin.test/live/v-10.m4s", "http://origin.test/live/v-11.m4s"])
        #expect(second.missed == 0 && !second.ended)
        let late = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: mpd, now: Self.ast + 40.5, record: RecordRequest())
        #expect(late.missed == 8, "segments 12 … 19 (up to 32 s) left the window (from 30.5 s) unseen")
        let gap = try #require(late.entries.first)
        #expect(gap.isGap && gap.resource.duration == 16, "16 s of the recording's timeline missing")
        #expect(urls(late).first == "http://origin.test/live/v-20.m4s")
        #expect(late.lines.first == #"<S t="30000" d="2000"/>"#, "the timeline jumps over the gap")
        #expect(state.seconds == 40 && state.firstTime == 0)
    }

    @Test func timelineSegmentsAreAddressedByTheirTime() throws {
        let mpd = try timeline()
        var state = try start(mpd)
        let delta = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: mpd, now: Self.ast + 7, record: RecordRequest())
        #expect(urls(delta) == [90_000, 270_000, 450_000].map { "http://origin.test/live/v-\($0).m4s" })
        #expect(state.firstTime == 90_000, "the local copy starts at the first segment taken")
        #expect(state.targetDuration == 1)
        let grown = try timeline(entries: #"<S t="90000" d="180000" r="3"/><S d="90000"/>"#)
        let next = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: grown, now: Self.ast + 9, record: RecordRequest())
        #expect(urls(next) == ["http://origin.test/live/v-630000.m4s", "http://origin.test/live/v-810000.m4s"])
        #expect(next.lines == [#"<S t="630000" d="180000"/>"#, #"<S t="810000" d="90000"/>"#])
    }

    @Test func fromLiveStartsAtTheSuggestedDelayBehindTheEdge() throws {
        let mpd = try numbered(timing: #"suggestedPresentationDelay="PT4S""#)
        var state = try start(mpd)
        let delta = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: mpd, now: Self.ast + 10.5, record: RecordRequest(from: .live))
        #expect(urls(delta) == ["http://origin.test/live/v-8.m4s", "http://origin.test/live/v-9.m4s"], "from 6 s")
        var fromStart = try start(mpd)
        let all = try LiveDASHRecorder.merge(
            &fromStart, rendition: 0, mpd: mpd, now: Self.ast + 10.5, record: RecordRequest(from: .start))
        #expect(all.newSegments == 5)
        let timelineState = try timeline()
        var t = try start(timelineState)
        let edge = try LiveDASHRecorder.merge(
            &t, rendition: 0, mpd: timelineState, now: Self.ast + 12.5, record: RecordRequest(from: .live))
        #expect(edge.newSegments == 3, "three segments back without a suggested delay: 6 … 12 s")
    }

    @Test func aBoxClockMinutesAheadAsksOnlyForWhatExistsOnTheOriginsClock() throws {
        let mpd = try numbered()
        // The box reads 310.5 s after the start; the origin's UTCTiming said 10.4 s while the box read 310.3 s.
        let clock = OriginClock(originTime: Self.ast + 10.4, sentAt: Self.ast + 310.3, receivedAt: Self.ast + 310.5)
        let boxNow = Self.ast + 310.5
        var state = try start(mpd)
        let corrected = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: mpd, now: clock.now(local: boxNow), record: RecordRequest())
        #expect(urls(corrected) == (5...9).map { "http://origin.test/live/v-\($0).m4s" })
        var naive = try start(mpd)
        let wrong = try LiveDASHRecorder.merge(&naive, rendition: 0, mpd: mpd, now: boxNow, record: RecordRequest())
        #expect(wrong.entries.first.map { $0.resource.url.hasSuffix("v-155.m4s") } == true, "segments not made yet")
    }

    @Test func theRecordingEndsWhenTheMPDTurnsStaticOrGetsADuration() throws {
        var state = try start(try numbered())
        _ = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: try numbered(), now: Self.ast + 10.5, record: RecordRequest())
        let ended = try numbered(type: "static", timing: #"mediaPresentationDuration="PT14S""#)
        let last = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: ended, now: Self.ast + 10.6, record: RecordRequest())
        #expect(urls(last) == ["http://origin.test/live/v-10.m4s", "http://origin.test/live/v-11.m4s"])
        #expect(last.ended && state.ended && last.endReason == "the MPD turned static")
        var announced = try start(try numbered())
        let withDuration = try numbered(timing: #"mediaPresentationDuration="PT6S""#)
        let whole = try LiveDASHRecorder.merge(
            &announced, rendition: 0, mpd: withDuration, now: Self.ast + 4.5, record: RecordRequest())
        #expect(whole.newSegments == 2 && !whole.ended, "the third segment is not complete yet")
        let rest = try LiveDASHRecorder.merge(
            &announced, rendition: 0, mpd: withDuration, now: Self.ast + 6.5, record: RecordRequest())
        #expect(rest.newSegments == 1 && rest.endReason == "the MPD got a mediaPresentationDuration")
    }

    @Test func theRequestedDurationEndsIt() throws {
        var state = try start(try numbered())
        let delta = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: try numbered(), now: Self.ast + 10.5,
            record: RecordRequest(durationSeconds: 5))
        #expect(delta.newSegments == 3 && delta.ended && delta.endReason == "the requested duration was recorded")
        let after = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: try numbered(), now: Self.ast + 20, record: RecordRequest())
        #expect(after.entries.isEmpty, "an ended rendition takes nothing more")
    }

    @Test func theLocalManifestIsFilledWithTheRecordedTimelines() throws {
        let mpd = try numbered()
        let planned = try LiveDASHPlanner.plan(mpd: mpd, selection: Selection())
        var state = try #require(planned.states.first)
        let delta = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: mpd, now: Self.ast + 6.5, record: RecordRequest())
        let text = LiveDASHManifest.render(
            planned.plan.masterPlaylist,
            tracks: [.init(presentationTimeOffset: state.firstTime ?? 0, lines: delta.lines, seconds: state.seconds)])
        #expect(!text.contains("{{"), "\(text)")
        #expect(text.contains(#"<Period id="p0" start="PT0.000S" duration="PT6.000S">"#), "\(text)")
        #expect(text.contains(#"type="static""#) && text.contains(#"mediaPresentationDuration="PT6.000S""#), "\(text)")
        #expect(text.contains(#"presentationTimeOffset="0""#), "\(text)")
        #expect(text.contains(#"media="p0/video-0-0/seg-$Number%05d$.m4s""#), "\(text)")
        let local = try MPD(text: text, url: "http://127.0.0.1/manifest.mpd")
        guard
            case .segments(let segments) = try SegmentAddresser.address(
                try #require(local.periods.first?.adaptationSets.first?.representations.first),
                in: try #require(local.periods.first))
        else { throw DASHError.missing("x", "y") }
        #expect(segments.segments.map(\.location.url).map { $0.hasSuffix("seg-00003.m4s") } == [false, false, true])
    }

    @Test func aFileMissingAfterItWasListedMakesItsTrackASegmentListWithoutIt() throws {
        let mpd = try numbered()
        let planned = try LiveDASHPlanner.plan(mpd: mpd, selection: Selection())
        var state = try #require(planned.states.first)
        let delta = try LiveDASHRecorder.merge(
            &state, rendition: 0, mpd: mpd, now: Self.ast + 6.5, record: RecordRequest())
        let text = LiveDASHManifest.render(
            planned.plan.masterPlaylist,
            tracks: [.init(presentationTimeOffset: 0, lines: delta.lines, seconds: state.seconds, missing: [1])])
        #expect(!text.contains("{{") && !text.contains("SegmentTemplate") && text.contains("<SegmentList"), "\(text)")
        #expect(!text.contains("seg-00002"), "\(text)")
        let local = try MPD(text: text, url: "http://127.0.0.1/manifest.mpd")
        let period = try #require(local.periods.first)
        guard
            case .segments(let segments) = try SegmentAddresser.address(
                try #require(period.adaptationSets.first?.representations.first), in: period)
        else { throw DASHError.missing("SegmentList", "SegmentURL") }
        #expect(
            segments.segments.map(\.location.url)
                == ["seg-00001.m4s", "seg-00003.m4s"].map {
                    "http://127.0.0.1/p0/video-0-0/" + $0
                })
        #expect(segments.segments.map(\.start) == [0, 4], "the timeline says where the hole is")
        #expect(segments.initialization?.url == "http://127.0.0.1/p0/video-0-0/init.mp4")
    }
}
