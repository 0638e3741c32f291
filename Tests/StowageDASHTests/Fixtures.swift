import StowageProtocol
import Testing

@testable import StowageDASH

/// MPDs in the shapes ffmpeg 5.1's `dash` muxer writes, and hand-written ones for what it cannot write.
enum Fixtures {
    static let url = "http://origin.test/movie/manifest.mpd"

    /// ffmpeg's MPD header and footer around `periods`.
    static func ffmpeg(duration: String, _ periods: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
        \txmlns="urn:mpeg:dash:schema:mpd:2011"
        \txmlns:xlink="http://www.w3.org/1999/xlink"
        \txsi:schemaLocation="urn:mpeg:DASH:schema:MPD:2011 \
        http://standards.iso.org/ittf/PubliclyAvailableStandards/MPEG-DASH_schema_files/DASH-MPD.xsd"
        \tprofiles="urn:mpeg:dash:profile:isoff-live:2011"
        \ttype="static"
        \tmediaPresentationDuration="\(duration)"
        \tmaxSegmentDuration="PT2.0S"
        \tminBufferTime="PT4.0S">
        \t<ProgramInformation>
        \t</ProgramInformation>
        \t<ServiceDescription id="0">
        \t</ServiceDescription>
        \(periods)
        </MPD>
        """
    }

    /// `-use_template 1 -use_timeline 0`: `$Number$` with `@duration`; 9.5 s, so the last segment is 1.5 s.
    static let templateNoTimeline = ffmpeg(
        duration: "PT9.5S",
        """
        \t<Period id="0" start="PT0.0S">
        \t\t<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" \
        bitstreamSwitching="true" frameRate="25/1" maxWidth="640" maxHeight="360" par="16:9" lang="und">
        \t\t\t<Representation id="0" mimeType="video/mp4" codecs="avc1.64001e" bandwidth="500000" \
        width="640" height="360" sar="1:1">
        \t\t\t\t<SegmentTemplate timescale="12800" initialization="init-stream$RepresentationID$.m4s" \
        media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1" duration="25600">
        \t\t\t\t</SegmentTemplate>
        \t\t\t</Representation>
        \t\t</AdaptationSet>
        \t\t<AdaptationSet id="1" contentType="audio" startWithSAP="1" segmentAlignment="true" \
        bitstreamSwitching="true" lang="und">
        \t\t\t<Representation id="1" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="128000" \
        audioSamplingRate="48000">
        \t\t\t\t<AudioChannelConfiguration \
        schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="2" />
        \t\t\t\t<SegmentTemplate timescale="48000" initialization="init-stream$RepresentationID$.m4s" \
        media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1" duration="96000">
        \t\t\t\t</SegmentTemplate>
        \t\t\t</Representation>
        \t\t</AdaptationSet>
        \t</Period>
        """)

    /// `-use_timeline 1` with `media` as given (`$Number%05d$` or `$Time$`): 4 × 2 s then 1 s.
    static func templateTimeline(media: String) -> String {
        ffmpeg(
            duration: "PT9.0S",
            """
            \t<Period id="0" start="PT0.0S">
            \t\t<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" \
            bitstreamSwitching="true" frameRate="25/1" maxWidth="640" maxHeight="360" par="16:9" lang="und">
            \t\t\t<Representation id="0" mimeType="video/mp4" codecs="avc1.64001e" bandwidth="500000" \
            width="640" height="360" sar="1:1">
            \t\t\t\t<SegmentTemplate timescale="12800" initialization="init-stream$RepresentationID$.m4s" \
            media="\(media)" startNumber="1">
            \t\t\t\t\t<SegmentTimeline>
            \t\t\t\t\t\t<S t="0" d="25600" r="3" />
            \t\t\t\t\t\t<S d="12800" />
            \t\t\t\t\t</SegmentTimeline>
            \t\t\t\t</SegmentTemplate>
            \t\t\t</Representation>
            \t\t</AdaptationSet>
            \t</Period>
            """)
    }

    /// `-single_file 1`: a SegmentList of byte ranges of one file named by the Representation's BaseURL.
    static let singleFile = ffmpeg(
        duration: "PT5.0S",
        """
        \t<Period id="0" start="PT0.0S">
        \t\t<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" lang="und">
        \t\t\t<Representation id="0" mimeType="video/mp4" codecs="avc1.64001e" bandwidth="500000" \
        width="640" height="360" sar="1:1">
        \t\t\t\t<BaseURL>stream0.mp4</BaseURL>
        \t\t\t\t<SegmentList timescale="1000000" duration="2000000" startNumber="1">
        \t\t\t\t\t<Initialization range="0-839" />
        \t\t\t\t\t<SegmentURL mediaRange="840-52341" indexRange="840-891" />
        \t\t\t\t\t<SegmentURL mediaRange="52342-99999" indexRange="52342-52393" />
        \t\t\t\t\t<SegmentURL mediaRange="100000-120000" indexRange="100000-100051" />
        \t\t\t\t</SegmentList>
        \t\t\t</Representation>
        \t\t</AdaptationSet>
        \t</Period>
        """)

    /// On-demand profile: SegmentBase with an index range (the `sidx` is 68 bytes at 1000).
    static let segmentBase = """
        <?xml version="1.0"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT5S"
             profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" minBufferTime="PT2S">
          <Period>
            <AdaptationSet mimeType="video/mp4" codecs="avc1.4d401f">
              <Representation id="v" bandwidth="800000" width="1280" height="720">
                <BaseURL>media/video.mp4</BaseURL>
                <SegmentBase indexRange="1000-1067" timescale="90000">
                  <Initialization range="0-999"/>
                </SegmentBase>
              </Representation>
            </AdaptationSet>
          </Period>
        </MPD>
        """

    /// Two Periods (an ad, then the main title), two CDNs as MPD BaseURLs, templates inherited Period →
    /// AdaptationSet → Representation, two audio languages (English is `main`), WebVTT subtitles.
    static let multiPeriod = """
        <?xml version="1.0"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S"
             minBufferTime="PT2S">
          <BaseURL>http://cdn1.test/title/</BaseURL>
          <BaseURL>http://cdn2.test/title/</BaseURL>
          <Period id="ad" duration="PT4S">
            <SegmentTemplate timescale="1000" duration="2000" media="$RepresentationID$/seg-$Number$.m4s"
                             initialization="$RepresentationID$/init.mp4"/>
            <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.42c01e">
              <Representation id="ad-v" bandwidth="300000" width="640" height="360"/>
            </AdaptationSet>
            <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
              <Representation id="ad-a" bandwidth="64000" codecs="mp4a.40.2"/>
            </AdaptationSet>
          </Period>
          <Period id="main">
            <BaseURL>main/</BaseURL>
            <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.640028">
              <SegmentTemplate timescale="90000" duration="180000" media="v-$Bandwidth$-$Number%03d$.m4s"
                               initialization="v-$Bandwidth$-init.mp4" startNumber="1"/>
              <Representation id="v1" bandwidth="1000000" width="1280" height="720">
                <SegmentTemplate startNumber="10"/>
              </Representation>
              <Representation id="v2" bandwidth="3000000" width="1920" height="1080"/>
            </AdaptationSet>
            <AdaptationSet mimeType="audio/mp4" codecs="mp4a.40.2" lang="fr">
              <Role schemeIdUri="urn:mpeg:dash:role:2011" value="alternate"/>
              <SegmentTemplate timescale="48000" duration="96000" media="$RepresentationID$-$Number$.m4s"
                               initialization="$RepresentationID$-init.mp4"/>
              <Representation id="a-fr" bandwidth="96000"/>
            </AdaptationSet>
            <AdaptationSet mimeType="audio/mp4" codecs="mp4a.40.2" lang="en">
              <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
              <SegmentTemplate timescale="48000" duration="96000" media="$RepresentationID$-$Number$.m4s"
                               initialization="$RepresentationID$-init.mp4"/>
              <Representation id="a-en-low" bandwidth="64000"/>
              <Representation id="a-en-high" bandwidth="192000"/>
            </AdaptationSet>
            <AdaptationSet mimeType="text/vtt" lang="en">
              <Representation id="sub-en" bandwidth="1000"><BaseURL>subs/en.vtt</BaseURL></Representation>
            </AdaptationSet>
          </Period>
        </MPD>
        """

    /// A valid Widevine `pssh` box, base64.
    static let widevinePSSH = "AAAAMnBzc2gAAAAA7e+LqXnWSs6jyCfc1R0h7QAAABISEBAAAAAQABAAEAAQAAAAAAE="

    /// A CENC title signalled for Widevine and PlayReady (device-only DRM), or for Clear Key.
    static func encrypted(clearKey: Bool) -> String {
        let systems =
            clearKey
            ? """
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0">
              <clearkey:Laurl Lic_type="EME-1.0">https://keys.test/clearkey</clearkey:Laurl>
            </ContentProtection>
            """
            : """
            <ContentProtection schemeIdUri="urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED">
              <cenc:pssh>
                \(widevinePSSH)
              </cenc:pssh>
            </ContentProtection>
            <ContentProtection schemeIdUri="urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95" value="MSPR 2.0">
              <mspr:la_url>https://pr.test/rightsmanager.asmx</mspr:la_url>
            </ContentProtection>
            """
        return """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013"
                 xmlns:mspr="urn:microsoft:playready" xmlns:clearkey="http://dashif.org/guidelines/clearKey"
                 type="static" mediaPresentationDuration="PT4S" minBufferTime="PT2S">
              <Period>
                <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001e">
                  <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011"
                                     value="\(clearKey ? "cbcs" : "cenc")"
                                     cenc:default_KID="10000000-1000-1000-1000-10000000000A"/>
                  \(systems)
                  <SegmentTemplate timescale="1000" duration="2000" media="v-$Number$.m4s" initialization="v-init.mp4"/>
                  <Representation id="v" bandwidth="500000" width="640" height="360"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
    }

    /// Parses `text` as if fetched from `url`.
    static func mpd(_ text: String, url: String = url) throws -> MPD {
        try MPD(text: text, url: url)
    }

    /// The segments of Representation `rep` of AdaptationSet `set` in Period `period`.
    static func segments(_ mpd: MPD, period: Int = 0, set: Int = 0, rep: Int = 0) throws -> RepresentationSegments {
        let p = mpd.periods[period]
        switch try SegmentAddresser.address(p.adaptationSets[set].representations[rep], in: p) {
        case .segments(let segments): return segments
        case .needsIndex(let request): throw DASHError(.unsupported, "unexpected index request \(request.index)")
        }
    }

    /// The offline plan of `text` for `selection`, as the resolver makes it (MPDs whose segments need no index).
    static func plan(_ text: String, _ selection: Selection = Selection()) throws -> ResolvedPlan {
        let mpd = try MPD(text: text, url: url)
        var inputs: [DASHPlanner.Input] = []
        for choice in try RepresentationSelector.select(mpd, selection) {
            let period = mpd.periods[choice.period]
            for track in choice.tracks {
                let rep = period.adaptationSets[track.adaptationSet].representations[track.representation]
                guard case .segments(let segments) = try SegmentAddresser.address(rep, in: period) else {
                    throw DASHError(.unsupported, "Representation '\(rep.id)' needs an index")
                }
                inputs.append(.init(period: choice.period, track: track, segments: segments))
            }
        }
        return try DASHPlanner.plan(mpd: mpd, inputs: inputs)
    }

    /// The error `body` throws, or nil.
    static func error(_ body: () throws -> Void) -> DASHError? {
        do {
            try body()
            return nil
        } catch let error as DASHError {
            return error
        } catch {
            return nil
        }
    }
}
