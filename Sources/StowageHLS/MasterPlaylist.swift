import StowageProtocol

/// A master (multivariant) playlist (RFC 8216 §4.3.4).
public struct MasterPlaylist: Sendable {
    /// One `EXT-X-STREAM-INF` and its URI.
    public struct Variant: Sendable, Equatable {
        public var attributes: AttributeList
        public var uri: String
        /// 1-based line of the tag.
        public var line: Int
        public var bandwidth: Int { attributes.integer("BANDWIDTH") ?? 0 }
        public var averageBandwidth: Int? { attributes.integer("AVERAGE-BANDWIDTH") }
        public var codecs: String? { attributes["CODECS"] }
        public var resolution: (width: Int, height: Int)? {
            guard let r = attributes["RESOLUTION"] else { return nil }
            let parts = r.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), Selection.height.range.contains(w),
                Selection.height.range.contains(h)
            else { return nil }
            return (w, h)
        }
        public var audioGroup: String? { attributes["AUDIO"] }
        /// `PATHWAY-ID` (content steering): the pathway the variant belongs to; "." when absent, as the spec says.
        public var pathwayID: String { attributes["PATHWAY-ID"] ?? "." }
        public var subtitlesGroup: String? { attributes["SUBTITLES"] }
        public var frameRate: Double? { attributes.decimal("FRAME-RATE") }
        /// `VIDEO-RANGE` (absent: SDR).
        public var videoRange: VideoRange { VideoRange(hls: attributes["VIDEO-RANGE"]) }
        /// The video codec family named in `CODECS`; nil without one.
        public var videoFamily: CodecFamily? { CodecFamily.videoFamily(in: codecs) }
        /// The audio codec families named in `CODECS` (those of its audio group's renditions, or of muxed audio).
        public var audioFamilies: [CodecFamily] { CodecFamily.audioFamilies(in: codecs) }

        /// Whether the variant carries video: a video codec, or a resolution, or (no codecs given) assumed.
        public var hasVideo: Bool {
            if resolution != nil { return true }
            guard let codecs else { return true }
            let video = ["avc1", "avc3", "hvc1", "hev1", "av01", "vp09", "vp8", "mp4v", "dvh1", "dvhe"]
            return codecs.split(separator: ",").contains { c in
                video.contains { c.trimmingCharacters(in: " ").hasPrefix($0) }
            }
        }

        public static func == (a: Variant, b: Variant) -> Bool { a.attributes == b.attributes && a.uri == b.uri }
    }

    /// One `EXT-X-I-FRAME-STREAM-INF`: a playlist of a video's key frames (`EXT-X-I-FRAMES-ONLY`), for scrubbing.
    public struct IFrameStream: Sendable, Equatable {
        public var attributes: AttributeList
        public var uri: String
        /// 1-based line of the tag.
        public var line: Int
        public var bandwidth: Int { attributes.integer("BANDWIDTH") ?? 0 }
        public var resolution: String? { attributes["RESOLUTION"]?.lowercased() }
    }

    /// One `EXT-X-MEDIA`.
    public struct Rendition: Sendable, Equatable {
        public var attributes: AttributeList
        public var line: Int
        public var type: String { attributes["TYPE"] ?? "" }
        public var groupID: String { attributes["GROUP-ID"] ?? "" }
        public var language: String? { attributes["LANGUAGE"] }
        public var name: String { attributes["NAME"] ?? "" }
        public var uri: String? { attributes["URI"] }
        public var isDefault: Bool { attributes["DEFAULT"] == "YES" }
        public var isAutoselect: Bool { attributes["AUTOSELECT"] == "YES" }
        /// The channel count of `CHANNELS` (`"6"`, `"16/JOC"`: the first field); nil when absent or out of range.
        public var channels: Int? {
            guard let first = attributes["CHANNELS"]?.split(separator: "/").first, let n = Int(first) else {
                return nil
            }
            return Selection.channelCount.range.contains(n) ? n : nil
        }
    }

    public let url: String
    public private(set) var variants: [Variant] = []
    public private(set) var renditions: [Rendition] = []
    /// `EXT-X-I-FRAME-STREAM-INF`s: dropped offline unless the selection keeps them (`submit --iframes`).
    public private(set) var iFrameStreams: [IFrameStream] = []
    /// Tags copied to the offline master as they are (`EXT-X-VERSION`, `EXT-X-INDEPENDENT-SEGMENTS`,
    /// `EXT-X-START`, `EXT-X-SESSION-DATA`, `EXT-X-SESSION-KEY`).
    public private(set) var passThroughTags: [String] = []
    /// `EXT-X-CONTENT-STEERING`: the steering server (`SERVER-URI`, resolved) and the pathway to start on.
    public private(set) var steering: (serverURI: String?, pathwayID: String?)?

    public init(text: String, url: String) throws(PlaylistError) {
        self.url = url
        let lines = try PlaylistLines(text, url: url).lines
        var pending: (AttributeList, Int)?
        for (i, line) in lines.enumerated() {
            let number = i + 1
            func fail(_ message: String) -> PlaylistError { PlaylistError(.malformed, url: url, line: number, message) }
            if line.allSatisfy(\.isWhitespace) { continue }
            if line.hasPrefix("#") {
                let (name, value) = PlaylistLines.tag(line)
                func attrs() throws(PlaylistError) -> AttributeList {
                    do { return try AttributeList(parsing: value) } catch { throw fail("\(name): \(error.message)") }
                }
                switch name {
                case "#EXT-X-STREAM-INF":
                    let a = try attrs()
                    guard a["BANDWIDTH"] != nil else { throw fail("#EXT-X-STREAM-INF has no numeric BANDWIDTH") }
                    try Self.checkBitRates(a, tag: String(name), fail: fail)
                    pending = (a, number)
                case "#EXT-X-MEDIA":
                    let a = try attrs()
                    guard let type = a["TYPE"], ["AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"].contains(type) else {
                        throw fail("#EXT-X-MEDIA has no valid TYPE")
                    }
                    guard a["GROUP-ID"] != nil, a["NAME"] != nil else {
                        throw fail("#EXT-X-MEDIA needs GROUP-ID and NAME")
                    }
                    if type == "SUBTITLES" && a["URI"] == nil { throw fail("#EXT-X-MEDIA TYPE=SUBTITLES needs a URI") }
                    renditions.append(Rendition(attributes: a, line: number))
                case "#EXT-X-I-FRAME-STREAM-INF":
                    // One without a URI names nothing to keep: dropped, as every I-frame stream is by default.
                    let a = try attrs()
                    try Self.checkBitRates(a, tag: String(name), fail: fail)
                    if let uri = a["URI"] { iFrameStreams.append(IFrameStream(attributes: a, uri: uri, line: number)) }
                case "#EXT-X-VERSION", "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-START", "#EXT-X-SESSION-DATA":
                    passThroughTags.append(String(line))
                case "#EXT-X-CONTENT-STEERING":
                    let a = try attrs()
                    let server = a["SERVER-URI"].flatMap { try? URIResolver.resolve($0, against: url, line: number) }
                    steering = (server, a["PATHWAY-ID"])
                case "#EXTINF":
                    throw fail("#EXTINF in a master playlist: a playlist cannot be both master and media")
                default:
                    continue
                }
                continue
            }
            guard let (a, tagLine) = pending else {
                throw fail("URI '\(line.prefix(60))' without #EXT-X-STREAM-INF before it")
            }
            variants.append(Variant(attributes: a, uri: String(line.trimmingCharacters(in: " \t")), line: tagLine))
            pending = nil
        }
        if pending != nil {
            throw PlaylistError(
                .malformed, url: url, line: lines.count, "#EXT-X-STREAM-INF at the end has no URI after it")
        }
        guard !variants.isEmpty else {
            throw PlaylistError(.malformed, url: url, line: nil, "master playlist has no #EXT-X-STREAM-INF variants")
        }
    }

    /// The same master with only `variants` (one pathway's, named `pathway`): selection and the offline master see
    /// one copy of each stream, not its redundant twins; I-frame streams of other pathways (`PATHWAY-ID`) go too.
    public func keeping(_ variants: [Variant], pathway: String) -> MasterPlaylist {
        var copy = self
        copy.variants = variants
        copy.iFrameStreams = iFrameStreams.filter { ($0.attributes["PATHWAY-ID"] ?? pathway) == pathway }
        return copy
    }

    /// `BANDWIDTH` and `AVERAGE-BANDWIDTH` within ``OutsideNumbers/bitsPerSecond(_:)``: an estimate is made from them.
    private static func checkBitRates(
        _ a: AttributeList, tag: String, fail: (String) -> PlaylistError
    ) throws(PlaylistError) {
        for field in ["BANDWIDTH", "AVERAGE-BANDWIDTH"] {
            guard let text = a[field] else { continue }
            do { _ = try OutsideNumbers.bitsPerSecond(field).parse(text) } catch { throw fail("\(tag): \(error)") }
        }
    }
}
