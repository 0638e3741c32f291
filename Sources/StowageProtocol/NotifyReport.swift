/// `stowctl notify status`: each `--notify` receiver and what waits for it (see docs/notifications.md).
public struct NotifyReport: Codable, Sendable, Equatable {
    /// One receiver.
    public struct Receiver: Codable, Sendable, Equatable {
        /// Its URL.
        public var url: String
        /// Events stored and not yet delivered to it.
        public var waiting: Int
        /// When the oldest of them was stored (ISO 8601; nil: none waits).
        public var oldestWaitingAt: String?
        /// Failed attempts since its last delivery.
        public var failures: Int
        /// Why the last attempt failed (nil: none failed since the start).
        public var lastError: String?
        /// When it is tried again (ISO 8601; nil: at once, nothing holds it back).
        public var nextAttemptAt: String?
        /// When an event last reached it (ISO 8601; nil: none since the start).
        public var lastDeliveredAt: String?

        public init(
            url: String, waiting: Int, oldestWaitingAt: String?, failures: Int, lastError: String?,
            nextAttemptAt: String?, lastDeliveredAt: String?
        ) {
            self.url = url
            self.waiting = waiting
            self.oldestWaitingAt = oldestWaitingAt
            self.failures = failures
            self.lastError = lastError
            self.nextAttemptAt = nextAttemptAt
            self.lastDeliveredAt = lastDeliveredAt
        }
    }

    /// Every receiver the scheduler was started with (`--notify`), and any that still has events stored.
    public var receivers: [Receiver]
    /// Whether events carry `X-Stowage-Signature` (`--notify-secret` given).
    public var signed: Bool

    public init(receivers: [Receiver], signed: Bool) {
        self.receivers = receivers
        self.signed = signed
    }
}
