import Foundation

/// How slow an answer from another party may be before it is cut: a peer box's gateway (its manifest and files),
/// the `--catalog` URL, a `--notify` receiver. A client timeout covers the wait for the answer's head and each
/// silence between two reads; a party that drips one byte every 20 s meets both and holds the request (and the
/// slot it occupies) for as long as it likes. So the whole answer, head and body, must also come at least
/// `minRate` bytes per second averaged over any `window` seconds, and end within `total` seconds. Measured on the
/// monotonic clock (``BodyWatch``).
public struct BodyLimits: Codable, Sendable, Equatable {
    /// The least bytes per second, averaged over `window`.
    public var minRate: Int
    /// Seconds the rate is averaged over (no cut before the answer is this old).
    public var window: Double
    /// Seconds the whole answer may take.
    public var total: Double

    public init(minRate: Int, window: Double, total: Double) {
        self.minRate = minRate
        self.window = window
        self.total = total
    }

    /// `--min-body-rate`'s default: 4 KiB/s, far below any link a box fills over, far above a drip.
    public static let defaultMinRate = 4096
    /// `--body-rate-window`'s default.
    public static let defaultWindow: Double = 30
    /// The longest one file from a peer may take (a 1 GiB file at 1.2 MB/s).
    public static let peerFileTotal: Double = 15 * 60
    /// The longest a catalogue (at most `CatalogLimits.maxBytes`, StowageCatalog) and its signature may take, each.
    public static let catalogTotal: Double = 2 * 60
    /// The longest one notification POST may take, answer included.
    public static let notifyTotal: Double = 30

    /// The same rate rule with another total.
    public func total(_ seconds: Double) -> BodyLimits { BodyLimits(minRate: minRate, window: window, total: seconds) }
}

/// An answer cut for its pace: the host and the limit it broke, for the log, `notify status`, `catalog status` and
/// a title's error.
public struct SlowAnswer: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Under the least rate over the window.
        case tooSlow = "too-slow"
        /// Past the total time.
        case tooLong = "too-long"
    }

    public var kind: Kind
    public var host: String
    public var message: String

    public init(_ kind: Kind, host: String, _ message: String) {
        self.kind = kind
        self.host = host
        self.message = message
    }

    public var description: String { message }
}

/// The pace decision over samples of (seconds since the request began, bytes received so far): pure, so it is
/// tested without waiting. ``BodyWatch`` feeds it from the monotonic clock.
public struct BodyPace: Sendable {
    public let limits: BodyLimits
    public let host: String
    private var samples: [(at: Double, bytes: Int)] = [(0, 0)]

    public init(_ limits: BodyLimits, host: String) {
        self.limits = limits
        self.host = host
    }

    /// Records `bytes` received by `at` seconds; answers why the answer is to be cut, or nil.
    public mutating func observe(at: Double, bytes: Int) -> SlowAnswer? {
        if at >= limits.total {
            return SlowAnswer(
                .tooLong, host: host,
                "\(host): the answer took longer than \(Self.seconds(limits.total)) (received \(bytes) bytes); cut")
        }
        samples.append((at, bytes))
        // Keep the newest sample that is at least a window old, and all after it.
        while samples.count > 1, at - samples[1].at >= limits.window { samples.removeFirst() }
        let oldest = samples[0]
        guard at - oldest.at >= limits.window, at > oldest.at else { return nil }
        let rate = Double(bytes - oldest.bytes) / (at - oldest.at)
        guard rate < Double(limits.minRate) else { return nil }
        return SlowAnswer(
            .tooSlow, host: host,
            "\(host): the answer came at \(Int(rate)) bytes/s over the last \(Self.seconds(at - oldest.at)), under "
                + "the least \(limits.minRate) bytes/s (--min-body-rate over --body-rate-window); cut")
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : String(format: "%.1f s", s)
    }
}
