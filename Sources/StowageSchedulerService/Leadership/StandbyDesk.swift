import Foundation
import Logging
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// A standby scheduler's endpoint: bound, so clients that list every scheduler find it, but it serves nothing. Every
/// client request is answered with where the leader is (``StandbyAnswer``, read from the store's leader row each
/// time, so it is never older than the question); workers are given nothing (their messages are dropped, and they
/// find the leader themselves). Access rules still apply: a caller whose key may not send a request is refused.
final class StandbyDesk {
    private let store: Store
    private let endpoint: SchedulerEndpoint
    private let logger: Logger
    private let clock: any SchedulerClock
    private var gate: AccessGate
    private var dropped = RateLimitedLog(interval: 60)

    init(store: Store, endpoint: SchedulerEndpoint, logger: Logger, clock: any SchedulerClock) {
        self.store = store
        self.endpoint = endpoint
        self.logger = logger
        self.clock = clock
        gate = AccessGate(logger: logger)
    }

    /// Answers as a standby until `claim` wins a term (returned) or a stop is requested (nil).
    func serve(until claim: () -> Int64?, shutdown: ShutdownSignal) throws -> Int64? {
        while !shutdown.isRequested {
            if let term = claim() { return term }
            let (readable, _) = try endpoint.poll()
            guard readable else { continue }
            while let message = endpoint.receive() { handle(message.frames, userID: message.userID) }
        }
        return nil
    }

    /// The answer to every client request: the leader's term and endpoints while its lease holds.
    func answer() -> StandbyAnswer {
        guard let lease = try? store.leader() else {
            return StandbyAnswer(term: 0, leaderEndpoints: [], leaderSince: nil)
        }
        guard lease.isHeld else { return StandbyAnswer(term: lease.term, leaderEndpoints: [], leaderSince: nil) }
        return StandbyAnswer(term: lease.term, leaderEndpoints: lease.endpoints, leaderSince: lease.since)
    }

    private func handle(_ frames: [[UInt8]], userID: String?) {
        guard frames.count >= 2, let envelope = try? FrameCodec.decode(Array(frames.dropFirst())) else { return }
        let identity = frames[0]
        let reply: ClientReply
        switch gate.admit(envelope, userID: userID, now: clock.monotonic()) {
        case .refused(let refusal):
            guard let refusal else { return }
            reply = refusal
        case .admitted:
            guard envelope.command == .request else {
                if dropped.shouldLog("worker", now: clock.monotonic()) {
                    logger.info("standby: a worker's message is dropped (workers are served by the leader only)")
                }
                return
            }
            guard let request = try? FrameCodec.body(ClientRequest.self, from: envelope) else { return }
            reply = ClientReply(requestID: request.requestID, result: .standby(answer()))
        }
        try? endpoint.send([identity] + FrameCodec.encode(.reply, reply))
    }
}
