import Foundation
import Logging
import StowageRuntime
import StowageSchedulerCore
import ZeroMQ

/// The scheduler's ZeroMQ authentication handler (ZAP, RFC 27): libzmq asks it about every CURVE
/// handshake on the tcp endpoints; a client public key on the allow-list is accepted, any other is
/// refused and logged. Its REP socket is polled by the scheduler's loop (one owner, like the ROUTER).
final class ZAPHandler {
    static let endpoint = "inproc://zeromq.zap.01"
    private let socket: Socket
    private let allowList: AllowList
    private let logger: Logger
    /// Handshakes refused so far.
    private(set) var refused = 0
    /// When each refused key was last logged (a refused peer retries every few seconds).
    private var refusals = RateLimitedLog(interval: 60)
    private let clock: any SchedulerClock

    init(context: Context, allowList: AllowList, logger: Logger, clock: any SchedulerClock) throws {
        socket = try context.socket(.rep)
        try socket.bind(Self.endpoint)
        self.allowList = allowList
        self.logger = logger
        self.clock = clock
    }

    var pollItem: PollItem { .socket(socket, .readable) }

    /// Answers every queued request.
    func drain() {
        while let frames = try? socket.receive(dontWait: true) {
            let decision = ZAPPolicy.answer(frames, caller: allowList.caller(for:))
            try? socket.send(decision.reply)
            if let key = decision.refusedKey {
                refused += 1
                guard refusals.shouldLog(key, now: clock.monotonic()) else { continue }
                logger.warning(
                    "refused a connection: its CURVE key is not on the allow-list",
                    metadata: ["key": "\(key)", "address": "\(decision.address)", "allowList": "\(allowList.path)"])
            } else if decision.accepted {
                logger.info(
                    "accepted a CURVE connection",
                    metadata: ["caller": "\(decision.userID)", "address": "\(decision.address)"])
            }
        }
    }

    func close() { socket.close(linger: 0) }
}
