import StowageProtocol
import Testing

@testable import StowageDASH

/// `submit --range` of an MPD: each Representation keeps the segments that overlap the range by its own
/// durations, and the local MPD's timeline and numbers describe only those, starting at the clip.
@Suite("DASH clips")
struct DASHClipTests {
    /// A 40 s title: video in 2 s segments, audio in 3 s ones, addressed by `video` and `audio` templates.
    static func mpd(video: String, audio: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT40S" \
        minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
          <Period id="0" start="PT0S">
            <AdaptationSet contentType="video" mimeType="video/mp4">
              <Representation id="v" codecs="avc1.64001e" bandwidth="800000" width="640" height="360">
                \(video)
              </Representation>
            </AdaptationSet>
            <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
              <Representation id="a" codecs="mp4a.40.2" bandwidth="128000">
                \(audio)
              </Representation>
            </AdaptationSet>
          </Period>
        </MPD>
        """
    }

    /// `$Number$` templates with `@duration`.
    static let numbered = mpd(
        video: """
            <SegmentTemplate timescale="1000" duration="2000" startNumber="1" initialization="v-init.mp4" \
            media="v-$Number$.m4s"/>
            """,
        audio: """
            <SegmentTemplate timescale="48000" duration="144000" startNumber="1" initialization="a-init.mp4" \
            media="a-$Number$.m4s"/>
            """)

    /// `$Time$` templates with a SegmentTimeline.
    static let timed = mpd(
        video: """
            <SegmentTemplate timescale="1000" initialization="v-init.mp4" media="v-$Time$.m4s">
              <SegmentTimeline><S t="0" d="2000" r="19"/></SegmentTimeline>
            </SegmentTemplate>
            """,
        audio: """
            <SegmentTemplate timescale="48000" initialization="a-init.mp4" media="a-$Time$.m4s">
              <SegmentTimeline><S t="0" d="144000" r="12"/><S d="48000"/></SegmentTimeline>
            </SegmentTemplate>
            """)

    static func plan(_ text: String, _ range: ClipRange) throws -> ResolvedPlan {
        let mpd = try MPD(text: text, url: Fixtures.url)
        var inputs: [DASHPlanner.Input] = []
        for choice in try RepresentationSelector.select(mpd, Selection(audio: ["en"])) {
            let period = mpd.periods[choice.period]
            for track in choice.tracks {
                let rep = period.adaptationSets[track.adaptationSet].representations[track.representation]
                guard case .segments(let segments) = try SegmentAddresser.address(rep, in: period) else {
                    throw DASHError(.unsupported, "needs an index")
                }
                inputs.append(.init(period: choice.period, track: track, segments: segments))
            }
        }
        return try DASHPlanner.plan(mpd: mpd, inputs: inputs, range: range)
    }

    static func segmentURLs(_ plan: ResolvedPlan, rendition: Int) -> [String] {
        plan.resources.filter { $0.rendition == rendition && $0.kind == .segment }.map {
            String($0.url.split(separator: "/").last!)
        }
    }

    @Test func numberedTemplatesKeepTheOverlappingNumbers() throws {
        let plan = try Self.plan(Self.numbered, ClipRange(from: 10, to: 20))
        #expect(Self.segmentURLs(plan, rendition: 0) == (6...10).map { "v-\($0).m4s" })
        // Audio in 3 s segments: 9–12, 12–15, 15–18, 18–21 overlap 10–20.
        #expect(Self.segmentURLs(plan, rendition: 1) == (4...7).map { "a-\($0).m4s" })
        #expect(plan.clip == ClipRange(from: 10, to: 20))
        let text = plan.masterPlaylist
        // The timeline names only the kept segments, at their own times, and the offset starts play at the clip.
        #expect(
            text.contains("presentationTimeOffset=\"10000\"") && text.contains("<S t=\"10000\" d=\"2000\" r=\"4\"/>"))
        #expect(
            text.contains("presentationTimeOffset=\"480000\"")
                && text.contains("<S t=\"432000\" d=\"144000\" r=\"3\"/>"))
        #expect(
            text.contains("mediaPresentationDuration=\"PT10.000S\""), "the clip lasts what its video keeps: \(text)")
        #expect(plan.resources.filter { $0.kind == .initSection }.count == 2)
    }

    @Test func timelineTemplatesKeepTheOverlappingTimes() throws {
        let plan = try Self.plan(Self.timed, ClipRange(from: 10, to: 20))
        #expect(
            Self.segmentURLs(plan, rendition: 0)
                == stride(from: 10_000, through: 18_000, by: 2_000).map { "v-\($0).m4s" })
        #expect(Self.segmentURLs(plan, rendition: 1) == [432_000, 576_000, 720_000, 864_000].map { "a-\($0).m4s" })
        #expect(plan.clip == ClipRange(from: 10, to: 20))
        #expect(plan.masterPlaylist.contains("<S t=\"10000\" d=\"2000\" r=\"4\"/>"))
    }

    @Test func aRangeInsideOneSegmentKeepsThatSegment() throws {
        let plan = try Self.plan(Self.numbered, ClipRange(from: 10.5, to: 11))
        #expect(Self.segmentURLs(plan, rendition: 0) == ["v-6.m4s"])
        #expect(Self.segmentURLs(plan, rendition: 1) == ["a-4.m4s"])
        #expect(plan.clip == ClipRange(from: 10, to: 12))
    }

    @Test func theEstimateIsTheClips() throws {
        let clip = try Self.plan(Self.numbered, ClipRange(from: 10, to: 20))
        let whole = try Self.plan(Self.numbered, ClipRange(from: 0, to: 40))
        #expect(Self.segmentURLs(whole, rendition: 0).count == 20)
        #expect((clip.bytesEstimate ?? 0) > 0 && (clip.bytesEstimate ?? 0) * 3 < (whole.bytesEstimate ?? 0))
    }

    @Test(arguments: [numbered, timed])
    func aRangePastTheEndIsRefusedNamingTheDuration(text: String) {
        let error = Fixtures.error { _ = try Self.plan(text, ClipRange(from: 45, to: 50)) }
        #expect(error?.code == .nothingSelectable && error?.message.contains("40 s long") == true)
    }
}
