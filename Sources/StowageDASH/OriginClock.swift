/// The origin's clock as seen from the box: the offset between the origin's wall clock and the box's, measured
/// once from a `UTCTiming` answer or the MPD's `Date` header and applied to the box's clock after that. Segment
/// availability is computed on it, so a box minutes off asks for what exists (no 404 storm, no false gap).
public struct OriginClock: Sendable, Equatable {
    /// Seconds to add to the box's wall clock to get the origin's.
    public var offset: Double

    public init(offset: Double = 0) {
        self.offset = offset
    }

    /// The offset from one exchange: the origin said `originTime` for a request sent at `sentAt` and answered at
    /// `receivedAt` (box wall clock). The origin's time is taken as of the middle of the round trip; a time that
    /// is not finite measures nothing and keeps the box's clock.
    public init(originTime: Double, sentAt: Double, receivedAt: Double) {
        let middle = sentAt + max(0, receivedAt - sentAt) / 2
        let offset = originTime - middle
        self.offset = offset.isFinite ? offset : 0
    }

    /// The origin's time when the box's wall clock reads `local`.
    public func now(local: Double) -> Double { local + offset }
}
