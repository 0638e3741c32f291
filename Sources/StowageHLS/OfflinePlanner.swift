import Foundation
import StowageProtocol

/// Turns the chosen playlists into the offline plan: one local file per distinct resource
/// (init sections and shared files once), offline playlists that reference only local files.
///
/// Each byte range is stored as a file of its own, so offline playlists drop `EXT-X-BYTERANGE`.
public struct OfflinePlanner: Sendable {
    /// The playlist a rendition comes from, already fetched and parsed.
    public struct Input: Sendable {
        public var kind: PlannedRendition.Kind
        public var playlist: MediaPlaylist
        /// The `EXT-X-MEDIA` it came from (nil for the variant itself).
        public var rendition: MasterPlaylist.Rendition?

        public init(kind: PlannedRendition.Kind, playlist: MediaPlaylist, rendition: MasterPlaylist.Rendition?) {
            self.kind = kind
            self.playlist = playlist
            self.rendition = rendition
        }
    }

    var folders = LocalNames.Allocator()
    var resources: [PlannedResource] = []
    var byKey: [String: Int] = [:]
    var renditions: [PlannedRendition] = []
    private var keys: [PlannedKey] = []
    private var keyIndex: [String: Int] = [:]
    /// The local I-frame playlist, when the plan keeps one.
    var iFramesPath: String?

    /// The local path under which `stowctl play` serves key `n`.
    public static func keyPath(_ n: Int) -> String { PlannedKey.localPath(n) }

    public init() {}

    /// Builds the plan for a master playlist and its chosen renditions (`inputs[0]` is the variant). A
    /// recording (`live`) plans the renditions only: their segments come with the reloads (``LiveRecorder``).
    /// A clip (`range`) keeps in each rendition only the segments that overlap it (``ClipCut``); its I-frame
    /// playlist is not kept (it indexes the whole title).
    public static func plan(
        master: MasterPlaylist?, choice: RenditionSelector.Choice?, inputs: [Input], live: Bool = false,
        iFrames: MediaPlaylist? = nil, range: ClipRange? = nil
    ) throws(PlaylistError) -> ResolvedPlan {
        var planner = OfflinePlanner()
        var cuts: [ClipCut?] = []
        for (i, input) in inputs.enumerated() {
            let cut = try range.map { (r) throws(PlaylistError) in
                try ClipCut(input.playlist, range: r, primary: i == 0)
            }
            cuts.append(cut)
            try planner.add(input, live: live, cut: cut)
        }
        if let iFrames, !live, range == nil { try planner.addIFrames(iFrames) }
        let text: String
        var estimate: Int64?
        let seconds = cuts.first??.span.length ?? inputs.first?.playlist.totalDuration ?? 0
        if let master, let choice {
            text = planner.masterText(master: master, choice: choice, inputs: inputs)
            let bps = choice.variant.averageBandwidth ?? choice.variant.bandwidth
            estimate = live ? nil : OutsideNumbers.estimate(bitsPerSecond: bps, seconds: seconds)
        } else {
            text = ""
        }
        var plan = ResolvedPlan(
            masterPlaylist: text, renditions: planner.renditions, resources: planner.resources, bytesEstimate: estimate,
            keys: planner.keys,
            bookmarks: Self.clipped(inputs.first.map { Self.indexBookmarks($0.playlist) } ?? [], cuts.first ?? nil),
            protection: HLSProtection.summarize(inputs.map(\.playlist)))
        plan.clip = cuts.first??.span.millisecondRounded
        return plan
    }

    private mutating func add(_ input: Input, live: Bool, cut: ClipCut?) throws(PlaylistError) {
        let playlist = input.playlist
        let index = renditions.count
        let label: String
        switch input.kind {
        case .video: label = "video"
        case .audio:
            label =
                "audio-" + LocalNames.label(input.rendition?.language ?? input.rendition?.name, fallback: "\(index)")
        case .subtitles:
            label =
                "subtitles-"
                + LocalNames.label(input.rendition?.language ?? input.rendition?.name, fallback: "\(index)")
        }
        let folder = folders.unique(label)
        if live {
            renditions.append(
                PlannedRendition(
                    kind: input.kind, sourceURL: playlist.url, localPath: "\(folder)/index.m3u8", playlist: "",
                    language: input.rendition?.language))
            return
        }
        var lineTarget: [Int: String] = [:]  // line -> local path (relative to folder) for URI lines and MAP tags
        var initCount = 0
        // Keys take their positions in the order the playlist names them (the segments' ciphers refer to them).
        for (line, key) in playlist.keyLines.sorted(by: { $0.key < $1.key }) where key.isDeliverable {
            if let uri = key.uri { _ = try keyPosition(key, uri: uri, in: playlist, line: line) }
        }
        for (n, segment) in playlist.segments.enumerated() where cut?.kept.contains(n) ?? true {
            if let map = segment.map, lineTarget[map.line] == nil {
                let path = try addInitSection(
                    map, before: n, of: playlist, rendition: index, suggested: "\(folder)/init-\(initCount)")
                initCount += 1
                lineTarget[map.line] = relative(path, from: folder)
            }
            let ext = LocalNames.fileExtension(of: segment.uri)
            let container = Self.container(kind: input.kind, ext: ext, hasMap: segment.map != nil)
            let defaultExt =
                container == .webVTT ? "vtt" : container == .fmp4 ? "m4s" : container == .mpegTS ? "ts" : "bin"
            if segment.isGap {
                // Nothing is stored for a GAP segment, but it keeps its place (EXTINF, GAP and a local URI that
                // is never fetched): without a URI line its EXTINF and GAP tag would fall to the next segment.
                lineTarget[segment.line] = "gap-\(padded6(n)).\(ext ?? defaultExt)"
                continue
            }
            let url = try URIResolver.resolve(segment.uri, against: playlist.url, line: segment.line)
            let path = add(
                kind: input.kind == .subtitles ? .subtitle : .segment, rendition: index, url: url,
                range: segment.byteRange, suggested: "\(folder)/seg-\(padded6(n)).\(ext ?? defaultExt)",
                container: container, encrypted: segment.key?.encryptsWholeSegment ?? false, duration: segment.duration,
                cipher: try cipher(of: segment, number: n, in: playlist))
            lineTarget[segment.line] = relative(path, from: folder)
        }
        let text = try offlineMediaText(playlist, lineTarget: lineTarget, cut: cut)
        renditions.append(
            PlannedRendition(
                kind: input.kind, sourceURL: playlist.url, localPath: "\(folder)/index.m3u8",
                playlist: text, language: input.rendition?.language))
    }

    /// Plans the init section `map` that segment `n` of `playlist` comes with (at `suggested` plus its extension).
    /// After a whole-segment key it is ciphertext on the wire (RFC 8216 §4.3.2.4): stored as delivered, checked
    /// decrypted; its IV is the key's (§4.3.2.5 requires one), else that of the segment it comes with.
    mutating func addInitSection(
        _ map: MediaPlaylist.InitSection, before n: Int, of playlist: MediaPlaylist, rendition: Int,
        suggested: String
    ) throws(PlaylistError) -> String {
        let url = try URIResolver.resolve(map.uri, against: playlist.url, line: map.line)
        let cipher = try map.key.flatMap { (key) throws(PlaylistError) in
            try self.cipher(of: key, line: map.line, sequence: playlist.mediaSequence + n, in: playlist)
        }
        return add(
            kind: .initSection, rendition: rendition, url: url, range: map.byteRange,
            suggested: "\(suggested).\(LocalNames.fileExtension(of: map.uri) ?? "mp4")", container: .fmp4,
            encrypted: map.key?.encryptsWholeSegment ?? false, duration: 0, cipher: cipher)
    }

    mutating func add(
        kind: PlannedResource.Kind, rendition: Int, url: String, range: ByteRange?, suggested: String,
        container: Container, encrypted: Bool, duration: Double, cipher: SegmentCipher? = nil
    ) -> String {
        let key = "\(url)#\(range?.offset ?? -1):\(range?.length ?? -1)"
        if let existing = byKey[key] { return resources[existing].localPath }
        byKey[key] = resources.count
        resources.append(
            PlannedResource(
                kind: kind, rendition: rendition, url: url, rangeOffset: range?.offset,
                rangeLength: range?.length, localPath: suggested, container: container,
                encrypted: encrypted, duration: duration))
        resources[resources.count - 1].cipher = cipher
        return suggested
    }

    /// The offline text of `playlist`: URI lines and maps at `lineTarget`'s local paths, preceded by
    /// `ranges`' `EXT-X-BYTERANGE` where a line points into a stored file (an I-frame inside a kept segment).
    /// The position of `key` in the plan's keys (`/keys/n` offline), planned on first use: one key per URI (per
    /// URI and key ID for Clear Key).
    mutating func keyPosition(
        _ key: MediaPlaylist.Key, uri: String, in playlist: MediaPlaylist, line: Int
    ) throws(PlaylistError) -> Int {
        let absolute = try URIResolver.resolveKey(uri, method: key.method, against: playlist.url, line: line)
        let clearKey = key.keyFormat == MediaPlaylist.Key.clearKey
        let id = clearKey ? "\(absolute)#\(key.keyID ?? "")" : absolute
        if let n = keyIndex[id] { return n }
        keys.append(
            PlannedKey(
                uri: absolute, method: key.method, keyFormat: clearKey ? MediaPlaylist.Key.clearKey : nil,
                keyID: key.keyID))
        keyIndex[id] = keys.count - 1
        return keys.count - 1
    }

    /// How `segment` (number `n` of `playlist`) is enciphered when it is one AES-CBC ciphertext (`AES-128`,
    /// `AES-256`) under a key the license worker acquires; nil otherwise (clear, sample encryption, CTR, a DRM
    /// system's key).
    mutating func cipher(
        of segment: MediaPlaylist.Segment, number n: Int, in playlist: MediaPlaylist
    ) throws(PlaylistError) -> SegmentCipher? {
        guard let key = segment.key else { return nil }
        return try cipher(of: key, line: segment.line, sequence: playlist.mediaSequence + n, in: playlist)
    }

    /// How a file under `key` (at `line`; media sequence number `sequence` for an IV the key does not give) is
    /// enciphered, when it is one AES-CBC ciphertext under a key the license worker acquires.
    mutating func cipher(
        of key: MediaPlaylist.Key, line: Int, sequence: Int, in playlist: MediaPlaylist
    ) throws(PlaylistError) -> SegmentCipher? {
        guard ["AES-128", "AES-256"].contains(key.method), key.isDeliverable, let uri = key.uri else { return nil }
        let position = try keyPosition(key, uri: uri, in: playlist, line: line)
        return SegmentCipher(key: position, iv: SegmentCipher.iv(explicit: key.iv, sequence: UInt64(sequence)))
    }

    mutating func offlineMediaText(
        _ playlist: MediaPlaylist, lineTarget: [Int: String], ranges: [Int: ByteRange] = [:], cut: ClipCut? = nil
    ) throws(PlaylistError) -> String {
        var out: [String] = []
        for (i, line) in playlist.lines.enumerated() {
            let number = i + 1
            if playlist.byteRangeLines.contains(number) { continue }
            if let cut {
                // A clip: the dropped segments' lines go, the sequence numbers name the first kept segment.
                guard let lines = cut.rewrite(line, line: number) else { continue }
                if lines != [String(line)] {
                    out += lines
                    continue
                }
            }
            if let target = lineTarget[number] {
                if line.hasPrefix("#EXT-X-MAP") {
                    out.append("#EXT-X-MAP:URI=\"\(target)\"")
                } else {
                    if let r = ranges[number] { out.append("#EXT-X-BYTERANGE:\(r.length)@\(r.offset)") }
                    out.append(target)
                }
            } else if let key = playlist.keyLines[number], let uri = key.uri {
                // Keys are acquired by the license worker and kept (wrapped) in the store, never next to the
                // media; offline, key n is served at /keys/n by `stowctl play` while the license allows.
                let (_, value) = PlaylistLines.tag(line)
                var attrs = (try? AttributeList(parsing: value)) ?? AttributeList()
                if key.isDeliverable {
                    let n = try keyPosition(key, uri: uri, in: playlist, line: number)
                    attrs.setQuoted("URI", Self.keyPath(n))
                    // Offline the raw key is served at /keys/n: the key system's own attributes no longer apply.
                    for name in ["KEYFORMAT", "KEYFORMATVERSIONS", "KEYID"] { attrs.remove(name) }
                } else if let absolute = try? URIResolver.resolve(uri, against: playlist.url, line: number) {
                    attrs.setQuoted("URI", absolute)  // a DRM system's key (http): left to that system
                }  // (skd://, data: … stay as they are)
                out.append("#EXT-X-KEY:" + attrs.text)
            } else if !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
                continue  // not a segment's URI line (cannot happen: every URI line is a segment)
            } else if !line.hasPrefix("#") || OfflineTags.mayCopy(line) {
                out.append(String(line))
            } else if line.hasPrefix("#EXTINF:") {
                // A segment's duration stays; a title that names a file or a URL does not (found by fuzzing).
                out.append(String(line.prefix { $0 != "," }) + ",")
            } else if let bare = Self.bareTags.first(where: { PlaylistLines.tag(line).name == $0 }) {
                out.append(bare)  // what the tag means stays, what follows it does not (found by fuzzing)
            }
        }
        while out.last?.isEmpty == true { out.removeLast() }
        return out.joined(separator: "\n") + "\n"
    }

    /// Tags a media playlist reads by their name alone: kept as the name when what follows cannot be copied.
    static let bareTags = ["#EXT-X-GAP", "#EXT-X-DISCONTINUITY", "#EXT-X-ENDLIST", "#EXT-X-I-FRAMES-ONLY"]

    private func masterText(master: MasterPlaylist, choice: RenditionSelector.Choice, inputs: [Input]) -> String {
        var out = ["#EXTM3U"] + master.passThroughTags.filter(OfflineTags.mayCopy)
        var variantAttrs = choice.variant.attributes
        // Renditions with their own playlist, chosen by the user, pointing at local copies.
        for (i, input) in inputs.enumerated() where i > 0 {
            guard var attrs = input.rendition?.attributes else { continue }
            attrs.setQuoted("URI", renditions[i].localPath)
            if input.kind == .audio {
                let first = inputs.firstIndex { $0.kind == .audio } == i
                attrs.remove("DEFAULT")
                attrs.remove("AUTOSELECT")
                attrs.set("DEFAULT", first ? "YES" : "NO", quoted: false)
                attrs.set("AUTOSELECT", "YES", quoted: false)
            }
            out.append("#EXT-X-MEDIA:" + attrs.text)
        }
        // Renditions without a URI (muxed audio, closed captions) referenced by the variant stay as they were.
        for r in master.renditions where r.uri == nil {
            let referenced =
                (r.type == "AUDIO" && r.groupID == choice.variant.audioGroup && choice.audio.isEmpty)
                || (r.type == "CLOSED-CAPTIONS" && r.groupID == choice.variant.attributes["CLOSED-CAPTIONS"])
            if referenced { out.append("#EXT-X-MEDIA:" + r.attributes.text) }
        }
        if choice.subtitles.isEmpty { variantAttrs.remove("SUBTITLES") }
        out.append("#EXT-X-STREAM-INF:" + variantAttrs.text)
        out.append(renditions[0].localPath)
        if let stream = choice.iFrames, let local = iFramesPath {
            var attrs = stream.attributes
            attrs.setQuoted("URI", local)
            out.append("#EXT-X-I-FRAME-STREAM-INF:" + attrs.text)
        }
        return out.joined(separator: "\n") + "\n"
    }

    func relative(_ path: String, from folder: String) -> String {
        path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : "../" + path
    }

    /// `bookmarks` inside a clip, placed from its start (all of them without one).
    static func clipped(_ bookmarks: [Bookmark], _ cut: ClipCut?) -> [Bookmark] {
        guard let span = cut?.span else { return bookmarks }
        return bookmarks.filter { $0.position >= span.from && $0.position <= span.to }.map {
            Bookmark(position: $0.position - span.from, label: $0.label, kind: $0.kind)
        }
    }

    /// Index bookmarks from `EXT-X-DATERANGE`s, placed on the `PROGRAM-DATE-TIME` timeline.
    static func indexBookmarks(_ playlist: MediaPlaylist) -> [Bookmark] {
        guard let pdt = playlist.programDateTime, let origin = Self.date(pdt.date) else { return [] }
        let zero = origin.timeIntervalSince1970 - pdt.at
        return playlist.dateRanges.compactMap { r in
            guard let start = Self.date(r.start) else { return nil }
            let position = start.timeIntervalSince1970 - zero
            guard position >= 0, position <= playlist.totalDuration else { return nil }
            return Bookmark(position: (position * 1000).rounded() / 1000, label: r.label ?? r.id, kind: .index)
        }
    }

    static func date(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    static func container(kind: PlannedRendition.Kind, ext: String?, hasMap: Bool) -> Container {
        // fMP4 first: subtitles may be fMP4 too (wvtt / stpp in ISO BMFF).
        if hasMap || ["m4s", "mp4", "m4a", "m4v", "cmfv", "cmfa", "cmft", "fmp4"].contains(ext ?? "") { return .fmp4 }
        if kind == .subtitles || ext == "vtt" || ext == "webvtt" { return .webVTT }
        if ext == "ts" || ext == nil { return .mpegTS }
        return .other
    }
}

/// `n` zero-padded to six digits.
func padded6(_ n: Int) -> String {
    let digits = "\(n)"
    return Swift.String(repeating: "0", count: max(0, 6 - digits.count)) + digits
}
