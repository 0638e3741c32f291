import StowageProtocol

/// Writes the offline copy's MPD (`manifest.mpd`): a static MPD naming only local relative files, in the forms
/// ffmpeg 5.1's DASH reader reads whole. That reader skips the first segment of `$Time$` templates and of
/// SegmentLists with a non-zero `startNumber`, and can loop on byte-range SegmentLists, so every segmented track
/// is written as a `$Number$` SegmentTemplate with `startNumber="1"`, `init.mp4`, and an explicit
/// SegmentTimeline (`S@d`, runs compressed with `S@r`, never `r="-1"`); a single-file track (a WebVTT sidecar)
/// is a Representation `BaseURL`. Every local name ends in an extension ffmpeg's reader opens (see
/// `LocalTrack.segmentExtension`). ContentProtection elements are kept so a player knows the scheme.
///
/// Several Periods are written as several Periods (each with its own `p<n>/` files), which DASH players play in
/// sequence; ffmpeg 5.1 plays only the first Period.
public enum LocalMPDWriter {
    /// One Period of the offline copy.
    public struct LocalPeriod: Sendable, Equatable {
        public var id: String?
        /// Seconds from the start of the presentation.
        public var start: Double
        /// Seconds; nil = the longest track's duration.
        public var duration: Double?
        public var tracks: [LocalTrack]

        public init(id: String?, start: Double, duration: Double?, tracks: [LocalTrack]) {
            self.id = id
            self.start = start
            self.duration = duration
            self.tracks = tracks
        }

        /// `duration`, else the longest track's.
        public var effectiveDuration: Double { duration ?? tracks.map(\.segments.duration).max() ?? 0 }
    }

    static let namespaces: [(prefix: String, uri: String)] = [
        ("cenc", "urn:mpeg:cenc:2013"),
        ("clearkey", "http://dashif.org/guidelines/clearKey"),
        ("dashif", "https://dashif.org/CPS"),
        ("ms", "urn:microsoft"),
        ("mspr", "urn:microsoft:playready"),
        ("sea", SegmentEncryption.namespace),
    ]

    /// The MPD text. `mediaPresentationDuration` nil = where the last Period ends.
    public static func write(periods: [LocalPeriod], mediaPresentationDuration: Double? = nil) -> String {
        let total = mediaPresentationDuration ?? periods.last.map { $0.start + $0.effectiveDuration } ?? 0
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        out += "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\""
        for ns in namespaces { out += " xmlns:\(ns.prefix)=\"\(ns.uri)\"" }
        out += " profiles=\"urn:mpeg:dash:profile:isoff-live:2011\" type=\"static\""
        out += " mediaPresentationDuration=\"\(ISODuration.format(total))\" minBufferTime=\"PT2S\">\n"
        for (index, period) in periods.enumerated() {
            out += "  <Period id=\"\(escape(period.id ?? "p\(index)"))\" start=\"\(ISODuration.format(period.start))\""
            out += " duration=\"\(ISODuration.format(period.effectiveDuration))\">\n"
            let main = period.tracks.firstIndex { $0.kind == .video && !$0.adaptationSet.isTrickMode }
            for (setIndex, track) in period.tracks.enumerated() {
                out += adaptationSet(track, id: setIndex, trickModeOf: main)
            }
            out += "  </Period>\n"
        }
        return out + "</MPD>\n"
    }

    /// One AdaptationSet; a trick-mode track (kept by `--iframes`) says so with the DASH-IF `EssentialProperty`
    /// naming the local id of its Period's video set (`trickModeOf`), so players that do not scrub skip it.
    private static func adaptationSet(_ track: LocalTrack, id: Int, trickModeOf main: Int?) -> String {
        let set = track.adaptationSet
        let rep = track.representation
        var attributes: [(String, String?)] = [
            ("id", String(id)), ("contentType", set.contentType == .other ? nil : set.contentType.rawValue),
            ("mimeType", rep.mimeType ?? set.mimeType), ("lang", set.lang),
        ]
        if track.kind != .subtitles { attributes.append(("segmentAlignment", "true")) }
        var out = "    <AdaptationSet\(render(attributes))>\n"
        if let label = set.label { out += "      <Label>\(escape(label))</Label>\n" }
        for role in set.roles {
            out += "      <Role\(render([("schemeIdUri", role.schemeIdUri), ("value", role.value)]))/>\n"
        }
        if set.isTrickMode {
            let property: [(String, String?)] = [
                ("schemeIdUri", AdaptationSet.trickModeScheme), ("value", main.map(String.init)),
            ]
            out += "      <EssentialProperty\(render(property))/>\n"
        }
        for protection in rep.contentProtections { out += contentProtection(protection) }
        let repAttributes: [(String, String?)] = [
            ("id", rep.id), ("bandwidth", String(rep.bandwidth)), ("width", rep.width.map(String.init)),
            ("height", rep.height.map(String.init)), ("codecs", rep.codecs ?? set.codecs),
            ("frameRate", rep.frameRate),
        ]
        out += "      <Representation\(render(repAttributes))>\n"
        if track.isSingleFile {
            out += "        <BaseURL>\(escape(track.segmentPath(0)))</BaseURL>\n"
        } else {
            out += segmentTemplate(track)
        }
        out += "      </Representation>\n"
        return out + "    </AdaptationSet>\n"
    }

    private static func segmentTemplate(_ track: LocalTrack) -> String {
        let segments = track.segments
        var attributes: [(String, String?)] = [("timescale", String(segments.timescale))]
        if segments.presentationTimeOffset > 0 {
            attributes.append(("presentationTimeOffset", String(segments.presentationTimeOffset)))
        }
        attributes.append(("initialization", track.initializationPath))
        attributes += [("media", track.mediaTemplate), ("startNumber", "1")]
        var out = "        <SegmentTemplate\(render(attributes))>\n          <SegmentTimeline>\n"
        var index = 0
        var expected: UInt64?
        let list = segments.segments
        while index < list.count {
            let first = list[index]
            var repeats = 0
            while index + repeats + 1 < list.count, list[index + repeats + 1].durationTicks == first.durationTicks,
                list[index + repeats + 1].time == list[index + repeats].time &+ first.durationTicks
            {
                repeats += 1
            }
            var s: [(String, String?)] = []
            if expected != first.time { s.append(("t", String(first.time))) }
            s.append(("d", String(first.durationTicks)))
            if repeats > 0 { s.append(("r", String(repeats))) }
            out += "            <S\(render(s))/>\n"
            let last = list[index + repeats]
            expected = last.time &+ last.durationTicks
            index += repeats + 1
        }
        return out + "          </SegmentTimeline>\n        </SegmentTemplate>\n"
    }

    private static func contentProtection(_ protection: ContentProtection) -> String {
        var attributes: [(String, String?)] = [("schemeIdUri", protection.schemeIdUri), ("value", protection.value)]
        if let kid = protection.defaultKID { attributes.append(("cenc:default_KID", uuid(kid))) }
        guard !protection.pssh.isEmpty || !protection.licenseURLs.isEmpty || protection.segmentEncryption != nil else {
            return "      <ContentProtection\(render(attributes))/>\n"
        }
        var out = "      <ContentProtection\(render(attributes))>\n"
        if let sea = protection.segmentEncryption { out += segmentEncryption(sea) }
        for box in protection.pssh { out += "        <cenc:pssh>\(escape(box))</cenc:pssh>\n" }
        for url in protection.licenseURLs {
            let name = qualifiedName(url)
            let type = url.licenseType.map { " licenseType=\"\(escape($0))\"" } ?? ""
            out += "        <\(name)\(type)>\(escape(url.url))</\(name)>\n"
        }
        return out + "      </ContentProtection>\n"
    }

    /// The `sea:` children of a segment-encryption ContentProtection: the cipher, the key system, and one
    /// `sea:CryptoPeriod` per run (offset and length always written, the IV when it is not the segment number).
    private static func segmentEncryption(_ sea: SegmentEncryption) -> String {
        var out = "        <sea:SegmentEncryption schemeIdUri=\"\(SegmentEncryption.aes128CBC)\"/>\n"
        out += "        <sea:KeySystem keySystemUri=\"\(SegmentEncryption.httpKeySystem)\"/>\n"
        for period in sea.periods {
            let attributes: [(String, String?)] = [
                ("offset", period.offset > 0 ? String(period.offset) : nil),
                ("numSegments", period.numSegments.map(String.init)), ("IV", period.iv.map(SegmentEncryption.hex)),
                ("keyUriTemplate", period.keyUriTemplate),
            ]
            out += "        <sea:CryptoPeriod\(render(attributes))/>\n"
        }
        return out
    }

    /// The license-URL element's name with the prefix this writer declares for its namespace.
    private static func qualifiedName(_ url: ContentProtection.LicenseURL) -> String {
        if let ns = url.namespace, let known = namespaces.first(where: { $0.uri == ns }) {
            return "\(known.prefix):\(url.element)"
        }
        switch url.element {
        case "laurl": return "ms:laurl"
        case "la_url": return "mspr:la_url"
        default: return "dashif:Laurl"
        }
    }

    /// `10000000-1000-…` from 32 hex digits.
    static func uuid(_ hex: String) -> String {
        guard hex.count == 32 else { return hex }
        let c = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(c[$0]) }.joined(separator: "-")
    }

    private static func render(_ attributes: [(String, String?)]) -> String {
        attributes.compactMap { name, value in value.map { " \(name)=\"\(escape($0))\"" } }.joined()
    }

    /// XML text and attribute escaping.
    static func escape(_ text: String) -> String { Markup.escape(text) }
}
