import StowageProtocol

/// One waiting event as the outbox decision sees it: its row, its receiver and its order key.
public struct NotifyWaiting: Sendable, Equatable {
    /// The outbox row id (the order).
    public var id: Int64
    /// The receiver's URL.
    public var receiver: String
    /// A title's token, or "" for the box's own events: one event per subject and receiver is out at a time.
    public var subject: String

    public init(id: Int64, receiver: String, subject: String) {
        self.id = id
        self.receiver = receiver
        self.subject = subject
    }
}

extension Backoff {
    /// A `--notify` receiver that failed: 1 s, 2 s, 4 s … capped at 30 s, ±20 %, so a receiver back up is
    /// reached within half a minute while one down for hours costs two requests a minute.
    public static let notify = Backoff(base: 1, cap: 30, jitter: 0.8...1.2)
}

/// What the scheduler remembers of `--notify` delivery between loop turns: which events are out with the
/// delivery task, and which receivers failed and wait before their next attempt. The events themselves are in the
/// store (the outbox); this is the decision of what to hand the delivery task next, without sockets.
///
/// Order per title: of a receiver's events about one subject, only the oldest waiting one may be out, so the next
/// goes only after the previous was delivered. Subjects and receivers proceed independently, except that a
/// receiver that failed waits out its backoff for all its events (it is down, not one event).
public struct NotifyOutbox: Sendable, Equatable {
    /// One receiver's failures and when it may be tried again.
    public struct Receiver: Sendable, Equatable {
        /// Failed attempts since the last delivery.
        public var failures = 0
        /// Monotonic seconds before which nothing is sent to it (nil: now).
        public var retryAt: Double?
        /// The last failure, for `stowctl notify status`.
        public var lastError: String?
        /// Wall-clock seconds of the last delivery.
        public var lastDeliveredAt: Double?

        public init() {}
    }

    /// Events out with the delivery task (row ids).
    public private(set) var inFlight: Set<Int64> = []
    /// Per receiver URL.
    public private(set) var receivers: [String: Receiver] = [:]
    /// Per title, the license end already announced as `license-expiring` (also kept in the store's settings).
    public var expiryAnnounced: [String: Double] = [:]
    /// At most this many events out per receiver at once: one, so a receiver that holds its answers holds one
    /// delivery slot (and the delivery task's time bound frees it), never the delivery of every other event.
    public var maxInFlightPerReceiver: Int
    public var backoff: Backoff

    public init(maxInFlightPerReceiver: Int = 1, backoff: Backoff = .notify) {
        self.maxInFlightPerReceiver = maxInFlightPerReceiver
        self.backoff = backoff
    }

    /// The events to hand the delivery task now, given every waiting row in outbox order: for each receiver
    /// not backed off, the oldest waiting event of each subject that has none out, up to the receiver's cap.
    /// They count as out from now on.
    public mutating func next(waiting: [NotifyWaiting], now: Double) -> [NotifyWaiting] {
        var blocked: Set<[String]> = []
        var out: [String: Int] = [:]
        for row in waiting where inFlight.contains(row.id) {
            blocked.insert([row.receiver, row.subject])
            out[row.receiver, default: 0] += 1
        }
        var chosen: [NotifyWaiting] = []
        for row in waiting where !inFlight.contains(row.id) {
            let key = [row.receiver, row.subject]
            guard !blocked.contains(key) else { continue }
            // Later events of this subject wait for this one, whether it goes now or not.
            blocked.insert(key)
            if let at = receivers[row.receiver]?.retryAt, now < at { continue }
            guard out[row.receiver, default: 0] < maxInFlightPerReceiver else { continue }
            out[row.receiver, default: 0] += 1
            chosen.append(row)
        }
        inFlight.formUnion(chosen.map(\.id))
        return chosen
    }

    /// Whether a license ending at `end` is to be announced now: it entered the `ahead` window, has not ended, and
    /// this end was not announced before (a renewal that moves the end is a new term, announced again).
    public static func expiryDue(end: Double, now: Double, ahead: Double, announced: Double?) -> Bool {
        end > now && end - now <= ahead && announced != end
    }

    /// The receiver answered 2xx for event `id` (the loop deletes its row).
    public mutating func delivered(_ id: Int64, receiver: String, wallNow: Double) {
        inFlight.remove(id)
        var state = receivers[receiver] ?? Receiver()
        state.failures = 0
        state.retryAt = nil
        state.lastDeliveredAt = wallNow
        receivers[receiver] = state
    }

    /// Sending event `id` failed: it stays waiting, and its receiver backs off (one more failure, unless it
    /// already waits: several events out at once fail together and count once). Answers the wait, seconds.
    @discardableResult
    public mutating func failed(_ id: Int64, receiver: String, error: String, now: Double) -> Double {
        inFlight.remove(id)
        var state = receivers[receiver] ?? Receiver()
        state.lastError = error
        if let at = state.retryAt, at > now {
            receivers[receiver] = state
            return at - now
        }
        let wait = backoff.jitteredDelay(afterFailures: state.failures)
        state.failures += 1
        state.retryAt = now + wait
        receivers[receiver] = state
        return wait
    }
}
