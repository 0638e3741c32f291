/// A component's own periodic timer on the monotonic clock: due at the first look, then once per interval.
public struct Every: Sendable, Equatable {
    /// Seconds between two runs.
    public var seconds: Double
    private var next: Double?

    public init(seconds: Double) { self.seconds = seconds }

    /// Whether the duty runs at `now`; when it does, the next run is one interval later.
    public mutating func isDue(now: Double) -> Bool {
        guard now >= next ?? -.infinity else { return false }
        next = now + seconds
        return true
    }
}
