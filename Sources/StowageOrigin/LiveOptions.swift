import Foundation

/// How `stowage-origin serve --live` turns a VOD media playlist into a live one (see ``LivePlaylist``).
public struct LiveOptions: Sendable, Equatable {
    /// Segments in the sliding window; 0 = an EVENT playlist (`#EXT-X-PLAYLIST-TYPE:EVENT`) that only grows.
    public var window: Int
    /// Time factor: a segment appears once the sum of the EXTINF durations up to and including it, divided by
    /// `speed`, has elapsed since the server started (2 = twice as fast as real time).
    public var speed: Double
    /// Segments available at time 0.
    public var start: Int
    /// The playlist stops growing after this many segments and never ends (a stalled stream); nil = it grows
    /// until every segment is available, then ends with `#EXT-X-ENDLIST`.
    public var stallAfter: Int?
    /// VOD segment indexes (0-based, counted in the VOD playlist) preceded by an inserted `#EXT-X-DISCONTINUITY`.
    public var discontinuityAt: Set<Int>
    /// Rotate AES-128 keys: segment `i` is encrypted with key `i / keyEvery`, served at `/live-keys/<k>`, and its
    /// media sequence number as the IV (nil = segments are served as they are on disk).
    public var keyEvery: Int?
    /// With a window, a segment that left it more than this many segments ago answers 404 (nil = kept forever).
    public var retain: Int?
    /// Seconds added to the origin's clock in live MPDs (`availabilityStartTime`, `publishTime`, the `UTCTiming`
    /// answer): an origin whose clock differs from the box's.
    public var clockOffset: Double = 0
    /// Seconds a live MPD's media segment answers 404 after the MPD lists it: an origin whose CDN is filled late
    /// (a client must ask again while the segment is in the window, not record a gap at once).
    public var segmentLag: Double = 0
    /// With ``stallAfter``, a live MPD stops growing for this many seconds once that many segments are out (a
    /// packager that stopped), then goes on at the origin's time: what left the window meanwhile is gone.
    /// Nil: ``stallAfter`` applies to HLS only.
    public var stallFor: Double?

    /// Options with the defaults of `stowage-origin serve --live`: an EVENT playlist in real time, one segment
    /// available at once, never stalling, no inserted discontinuities, no key rotation, segments kept forever.
    public init(
        window: Int = 0, speed: Double = 1, start: Int = 1, stallAfter: Int? = nil, discontinuityAt: Set<Int> = [],
        keyEvery: Int? = nil, retain: Int? = nil
    ) {
        self.window = window
        self.speed = speed
        self.start = start
        self.stallAfter = stallAfter
        self.discontinuityAt = discontinuityAt
        self.keyEvery = keyEvery
        self.retain = retain
    }

    /// Why these options cannot be used (phrased with the `serve` options that set them), or nil when they can.
    public var problem: String? {
        if window < 0 { return "--live-window takes 0 (an EVENT playlist that only grows) or a number of segments" }
        if !speed.isFinite || speed <= 0 { return "--live-speed takes a positive time factor such as 1, 2 or 0.5" }
        if start < 0 { return "--live-start takes a number of segments, 0 or more" }
        if let stallAfter, stallAfter < max(1, start) {
            return "--live-stall-after takes a number of segments, at least 1 and at least --live-start (\(start))"
        }
        if discontinuityAt.contains(where: { $0 < 0 }) {
            return "--live-discontinuity-at takes a 0-based segment index, 0 or more"
        }
        if !clockOffset.isFinite || abs(clockOffset) > 86_400 {
            return "--live-clock-offset takes seconds between -86400 and 86400"
        }
        if !segmentLag.isFinite || segmentLag < 0 || segmentLag > 3_600 {
            return "--live-segment-lag takes seconds between 0 and 3600"
        }
        if let stallFor {
            if stallAfter == nil { return "--live-stall-for needs --live-stall-after N (when the stall begins)" }
            if !stallFor.isFinite || stallFor <= 0 || stallFor > 3_600 {
                return "--live-stall-for takes seconds, more than 0 and at most 3600"
            }
        }
        if let keyEvery, keyEvery < 1 { return "--live-key-every takes a number of segments, 1 or more" }
        if let retain {
            if retain < 0 { return "--live-retain takes a number of segments, 0 or more" }
            if window == 0 { return "--live-retain needs --live-window N (N ≥ 1): an EVENT playlist keeps them all" }
        }
        return nil
    }
}
