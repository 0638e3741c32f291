import Synchronization

/// Whether the scheduler has stopped answering the gateway (a takeover under way, the scheduler restarting), and
/// the one rule for what the gateway serves meanwhile: what it holds — a device's credential checked good, a
/// title's status — answered by the scheduler within ``holdSeconds``, though older than its caches keep it
/// otherwise. Plays already authorised go on; a new play, a credential or title never seen waits for a scheduler
/// (503). Once the scheduler answers again the caches' own lifetimes apply.
///
/// An outage is on from a failure until a scheduler answers, or ``recentSeconds`` after the last failure (so the
/// next request asks the scheduler again instead of serving held answers forever). Monotonic seconds.
public final class SchedulerOutage: Sendable {
    /// How old an answer held may be and still be served during an outage: longer than a takeover
    /// (`--leader-lease`, 10 s by default, plus the time to recover), short enough that a revocation made just
    /// before the outage does not stay unseen for long.
    let holdSeconds: Double
    /// How long a failure keeps the outage on without another.
    let recentSeconds: Double
    private let lastFailure = Mutex<Double?>(nil)

    public init(holdSeconds: Double = 60, recentSeconds: Double = 10) {
        self.holdSeconds = holdSeconds
        self.recentSeconds = recentSeconds
    }

    /// The scheduler did not answer at `now` (a 503 of the backend).
    func failed(now: Double) { lastFailure.withLock { $0 = now } }

    /// The scheduler answered: the outage is over.
    func answered() { lastFailure.withLock { $0 = nil } }

    /// Whether the scheduler failed recently and has not answered since.
    func isOn(now: Double) -> Bool {
        lastFailure.withLock { last in last.map { now - $0 <= recentSeconds } ?? false }
    }

    /// Whether an answer given at `answeredAt` may be served at `now` because no scheduler answers.
    func serves(answeredAt: Double, now: Double) -> Bool {
        isOn(now: now) && now - answeredAt <= holdSeconds
    }

    /// Whether `error` says the scheduler did not answer (rather than refused).
    static func isSilence(_ error: any Error) -> Bool {
        (error as? GatewayError)?.status == .serviceUnavailable
    }
}
