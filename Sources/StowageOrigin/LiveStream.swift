import Crypto
import Foundation
import Synchronization
import _CryptoExtras

/// The live side of `stowage-origin serve --live`: every media playlist under the root is served as a live
/// rendering (``LivePlaylist``) of its VOD text, timed from one start instant so the renditions of a title stay
/// aligned. It also refuses segments that left the window (`retain`) and, with key rotation, encrypts segments
/// (AES-128-CBC, PKCS7 padding, the media sequence number as IV) and serves their keys at `/live-keys/<k>`.
public final class LiveStream: Sendable {
    /// The path prefix of rotation keys.
    public static let keyPrefix = "/live-keys/"

    /// The options every playlist is rendered with.
    public let options: LiveOptions
    /// The directory served.
    public let root: URL
    /// When the stream started (time 0 of every playlist).
    public let started: ContinuousClock.Instant
    /// The secret rotation keys are derived from (random per process).
    private let secret: [UInt8]
    private let state = Mutex(State())

    private struct State {
        /// Parsed playlists by root-relative path, with the text they were parsed from.
        var playlists: [String: (source: Data, playlist: LivePlaylist)] = [:]
        /// Parsed static MPDs served as dynamic ones (``LiveMPD``), likewise.
        var mpds: [String: (source: Data, mpd: LiveMPD)] = [:]
        /// For each root-relative segment path: the playlists naming it, and the segment indexes in each.
        var segments: [String: [(playlist: String, indexes: [Int])]] = [:]
    }

    /// The path of the origin's clock (an `xs:dateTime`), named by live MPDs' `UTCTiming`.
    public static let timePath = "/live-time"

    /// The origin's wall clock when the stream started (plus `--live-clock-offset`): the anchor of live MPDs'
    /// `availabilityStartTime`; from then on the origin's clock advances by ``elapsed`` (monotonic).
    public let startedWall: Double

    /// A stream whose time 0 is `started` (the server's start), with fresh random rotation keys.
    public init(root: URL, options: LiveOptions, started: ContinuousClock.Instant = .now) {
        self.root = root
        self.options = options
        self.started = started
        startedWall = Date().timeIntervalSince1970 + options.clockOffset
        secret = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    /// Seconds since `started`.
    public var elapsed: Double {
        let duration = ContinuousClock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Parses every media playlist under the root, so that segments map to their playlists before any playlist
    /// is asked for. Throws (naming the file) when one cannot be served live with these options, e.g. key
    /// rotation over segments that are already encrypted.
    public func load() throws {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return }
        while let relative = walker.nextObject() as? String {
            let parts = relative.split(separator: "/")
            let lowered = relative.lowercased()
            guard lowered.hasSuffix(".m3u8") || lowered.hasSuffix(".mpd"),
                !parts.contains(where: { $0.hasPrefix(".") }),
                let data = FileManager.default.contents(atPath: root.appendingPathComponent(relative).path)
            else { continue }
            if lowered.hasSuffix(".mpd") {
                _ = try liveMPD(at: LivePlaylist.requestPath("/" + relative), data: data)
            } else {
                _ = try liveText(path: "/" + relative, data: data)
            }
        }
    }

    /// The live rendering of the playlist at request path `path` whose file holds `data`, or nil when it is not
    /// a media playlist (a master playlist is served as it is). Throws when it cannot be served live.
    public func liveText(path: String, data: Data) throws -> String? {
        guard data.range(of: Data("#EXTINF".utf8)) != nil else { return nil }
        return try playlist(at: LivePlaylist.requestPath(path), data: data).render(at: elapsed, options)
    }

    /// Why the segment at request path `path` must be refused (404) now, or nil to serve it.
    public func segmentRefusal(path: String) -> String? {
        guard options.retain != nil, options.window > 0 else { return nil }
        let now = elapsed, key = LivePlaylist.requestPath(path)
        let refused = state.withLock { state -> Bool in
            guard let places = state.segments[key] else { return false }
            return places.allSatisfy { place in
                guard let playlist = state.playlists[place.playlist]?.playlist else { return false }
                return !place.indexes.contains { playlist.isServable(segment: $0, at: now, options) }
            }
        }
        return refused ? "segment left the live window" : nil
    }

    /// The bytes to serve for the segment at request path `path` whose file holds `data`: encrypted with its
    /// rotation key, or nil when there is no key rotation or `path` is not a segment of a known playlist.
    public func segmentBody(path: String, data: Data) throws -> Data? {
        guard let every = options.keyEvery else { return nil }
        let key = LivePlaylist.requestPath(path)
        let found = state.withLock { state -> (LivePlaylist, Int)? in
            guard let place = state.segments[key]?.first, let index = place.indexes.first,
                let playlist = state.playlists[place.playlist]?.playlist
            else { return nil }
            return (playlist, index)
        }
        guard let (playlist, index) = found, let bytes = self.key(index / every) else { return nil }
        let iv = try AES._CBC.IV(ivBytes: LivePlaylist.iv(sequence: playlist.mediaSequence + index))
        return try AES._CBC.encrypt(data, using: SymmetricKey(data: bytes), iv: iv)
    }

    /// Rotation key `index` (16 bytes), or nil without key rotation or for a negative index.
    public func key(_ index: Int) -> [UInt8]? {
        guard options.keyEvery != nil, index >= 0 else { return nil }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("stowage live key \(index)".utf8), using: SymmetricKey(data: secret))
        return Array(mac.prefix(16))
    }

    /// What the origin serves for a file on disk.
    public enum Answer: Sendable, Equatable {
        /// The file as it is (a master playlist, a file that is no segment, no key rotation).
        case asIs
        /// A media playlist's live rendering (never ranged, never cached).
        case playlist(String)
        /// A segment encrypted with its rotation key.
        case segment(Data)
        /// A segment that left the window (404), and why.
        case gone(String)
        /// A playlist that cannot be served live (500), and why.
        case failed(String)
    }

    /// The origin's clock now: the wall clock at the start (with the offset) advanced on the monotonic clock.
    public var originNow: Double { startedWall + elapsed }

    /// The live rendering of the static MPD at request path `path` holding `data` (nil: not a static MPD).
    public func liveMPDText(path: String, data: Data) throws -> String? {
        guard let mpd = try liveMPD(at: LivePlaylist.requestPath(path), data: data) else { return nil }
        let lead = Double(options.start) * mpd.segmentDuration
        return mpd.render(
            liveTime: liveTime(of: mpd), now: originNow, availabilityStart: startedWall - lead, window: options.window,
            timeURL: Self.timePath)
    }

    /// Seconds of the live MPD `mpd` that exist now: the time since the start plus `--live-start`'s segments, held
    /// at `--live-stall-after` segments for `--live-stall-for` seconds (a packager that stopped), then the
    /// origin's time again (segments of the stall that left the window meanwhile are never listed).
    func liveTime(of mpd: LiveMPD) -> Double {
        let now = elapsed + Double(options.start) * mpd.segmentDuration
        guard let after = options.stallAfter, let stallFor = options.stallFor else { return now }
        let at = Double(after) * mpd.segmentDuration
        return (at..<at + stallFor).contains(now) ? at : now
    }

    /// Why the DASH segment at request path `path` must be refused (404) now: asked for before it is complete, or
    /// within `--live-segment-lag` of it (listed, not at the origin yet).
    public func mpdSegmentRefusal(path: String) -> String? {
        let key = LivePlaylist.requestPath(path)
        let mpds = state.withLock { $0.mpds.values.map(\.mpd) }
        for mpd in mpds {
            if let available = mpd.isAvailable(path: key, liveTime: liveTime(of: mpd) - options.segmentLag) {
                return available ? nil : "segment not available yet"
            }
        }
        return nil
    }

    /// What to serve for the file at request path `path` that holds `data`.
    public func answer(path: String, data: Data) -> Answer {
        do {
            if path.lowercased().hasSuffix(".m3u8") {
                return try liveText(path: path, data: data).map(Answer.playlist) ?? .asIs
            }
            if path.lowercased().hasSuffix(".mpd") {
                return try liveMPDText(path: path, data: data).map(Answer.playlist) ?? .asIs
            }
            if let reason = mpdSegmentRefusal(path: path) { return .gone(reason) }
            if let reason = segmentRefusal(path: path) { return .gone(reason) }
            return try segmentBody(path: path, data: data).map(Answer.segment) ?? .asIs
        } catch {
            return .failed("\(error)")
        }
    }

    /// The parsed static MPD at root-relative `path` (nil: a dynamic one, served as it is), parsed again when its
    /// text changed.
    private func liveMPD(at path: String, data: Data) throws -> LiveMPD? {
        if let cached = state.withLock({ $0.mpds[path] }), cached.source == data { return cached.mpd }
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("type=\"static\"") else { return nil }
        let mpd = try LiveMPD(parsing: text, path: path)
        state.withLock { $0.mpds[path] = (data, mpd) }
        return mpd
    }

    /// The parsed playlist at root-relative `path`, parsed again when its text changed.
    private func playlist(at path: String, data: Data) throws -> LivePlaylist {
        if let cached = state.withLock({ $0.playlists[path] }), cached.source == data { return cached.playlist }
        let playlist: LivePlaylist
        do {
            playlist = try LivePlaylist(parsing: String(decoding: data, as: UTF8.self))
            try playlist.check(options)
        } catch {
            throw LivePlaylist.Failure("/\(path): \(error)")
        }
        let paths = playlist.segmentPaths(playlistPath: "/" + path)
        state.withLock { state in
            if state.playlists[path] != nil {
                for (segment, places) in state.segments {
                    state.segments[segment] = places.filter { $0.playlist != path }
                }
            }
            state.playlists[path] = (data, playlist)
            for (segment, indexes) in paths { state.segments[segment, default: []].append((path, indexes)) }
        }
        return playlist
    }
}
