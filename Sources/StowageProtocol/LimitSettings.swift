/// The scheduler's limits: what `stowctl limits` asks for and is shown (`ClientOperation.limits`,
/// `ReplyBody.limits`), and how the scheduler layers them: the defaults, then what was set with `stowctl limits`
/// (stored, in force after any restart), then flags or environment values given at start (for that run only).
/// A nil field is "not set at this layer" (in a change: unchanged).
///
/// One type for the wire, the stored setting and the layers, so a new limit is added in one place. Its JSON (the
/// same keys the two types it replaces had, nil fields left out) is both the wire form and the stored setting's.
public struct LimitSettings: Codable, Sendable, Equatable {
    /// Titles downloading at once.
    public var titles: Int?
    /// Segment fetches (and verifications) in flight per title.
    public var perTitle: Int?
    /// Requests in flight per origin host.
    public var perHost: Int?
    /// License requests in flight.
    public var licenses: Int?
    /// Global rate cap in bytes/s; 0 = none.
    public var bandwidth: Int64?
    /// Free space always kept where titles are stored, bytes.
    public var diskCushion: Int64?
    /// In a change: forget the stored values and go back to the defaults (`stowctl limits --reset`). Never
    /// set in a layer.
    public var reset: Bool?

    /// A layer, or a change; fields left nil are not set at it.
    public init(
        titles: Int? = nil, perTitle: Int? = nil, perHost: Int? = nil, licenses: Int? = nil,
        bandwidth: Int64? = nil, diskCushion: Int64? = nil, reset: Bool? = nil
    ) {
        self.titles = titles
        self.perTitle = perTitle
        self.perHost = perHost
        self.licenses = licenses
        self.bandwidth = bandwidth
        self.diskCushion = diskCushion
        self.reset = reset
    }

    /// What the scheduler uses when nothing else is said.
    public static let defaults = LimitSettings(
        titles: 2, perTitle: 6, perHost: 8, licenses: 4, bandwidth: 0,
        diskCushion: 1 << 30)

    /// This layer with every field `top` sets replaced by `top`'s value.
    public func overlaid(with top: LimitSettings) -> LimitSettings {
        LimitSettings(
            titles: top.titles ?? titles, perTitle: top.perTitle ?? perTitle, perHost: top.perHost ?? perHost,
            licenses: top.licenses ?? licenses, bandwidth: top.bandwidth ?? bandwidth,
            diskCushion: top.diskCushion ?? diskCushion)
    }

    /// Fields set in both layers with different values, as `(option, this value, top's value)`: what a
    /// start flag overrides of the stored settings (the scheduler logs each).
    public func overridden(by top: LimitSettings) -> [(option: String, stored: String, given: String)] {
        func pair<T: Equatable>(_ name: String, _ a: T?, _ b: T?) -> (String, String, String)? {
            guard let a, let b, a != b else { return nil }
            return (name, "\(a)", "\(b)")
        }
        return [
            pair("titles", titles, top.titles), pair("per-title", perTitle, top.perTitle),
            pair("per-host", perHost, top.perHost), pair("licenses", licenses, top.licenses),
            pair("bandwidth", bandwidth, top.bandwidth), pair("disk-cushion", diskCushion, top.diskCushion),
        ]
        .compactMap { $0.map { (option: $0.0, stored: $0.1, given: $0.2) } }
    }

    /// Why a change cannot be applied (a value out of range), or nil.
    public func refusal() -> String? {
        let counts = [("titles", titles), ("per-title", perTitle), ("per-host", perHost), ("licenses", licenses)]
        for (name, value) in counts {
            if let value, value < 1 || value > 10_000 { return "--\(name) must be between 1 and 10000 (got \(value))" }
        }
        if let bandwidth, !(0...OutsideNumbers.maxBytes).contains(bandwidth) {
            return "--bandwidth must be 0 (none) or a positive number of bytes/s up to \(OutsideNumbers.maxBytes)"
        }
        if let diskCushion, !(0...OutsideNumbers.maxBytes).contains(diskCushion) {
            return "--disk-cushion must be 0 or a positive number of bytes up to \(OutsideNumbers.maxBytes)"
        }
        return nil
    }
}

/// The name clients have used for ``LimitSettings`` on the wire (`stowctl limits --json` decodes into it).
public typealias LimitsInfo = LimitSettings
