import Foundation
import Logging
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import ZeroMQ

/// Where a message for a peer goes instead of the socket: in-process tests read the scheduler's frames here.
package protocol FrameOutlet: AnyObject {
    /// Takes one message whose first frame is the peer's identity; false if the peer is gone.
    func send(_ frames: [[UInt8]]) -> Bool
}

/// The scheduler's one ROUTER socket, bound to every endpoint (ipc always; tcp with CURVE and ZAP), the
/// waker the shutdown and probes ring, and the messages held until a store batch commits. Owned by the poll
/// loop's thread: no other thread touches the socket.
package final class SchedulerEndpoint {
    let context: Context
    let socket: Socket
    /// Authenticates CURVE clients on the tcp endpoints (nil when only ipc is bound).
    let zap: ZAPHandler?
    /// Failed handshakes on the tcp endpoints that never reach ZAP (a plain client on a CURVE endpoint, a peer
    /// that does not speak ZMTP): the socket's monitor events, read here to count them as refused.
    let handshakes: Socket?
    let waker = Waker()
    /// Results of host probes, posted from the probes' threads.
    /// Messages produced inside a store batch, sent once it commits (identity frame first).
    var held: [[[UInt8]]] = []
    /// Where messages go instead of the socket (tests); nil: the socket.
    var outlet: (any FrameOutlet)?

    /// Binds `home`'s ipc endpoint and `binds`: tcp ones need `curveKey` and `allowList`.
    init(
        home: StowageHome, binds: [String], curveKey: CurveKeyPair?, allowList: AllowList?, logger: Logger,
        clock: any SchedulerClock
    ) throws {
        context = try Context()
        socket = try context.socket(.router)
        try socket.set(.routerMandatory(true))
        try socket.set(.maxMessageSize(WireProtocol.maxMessageBytes))
        try socket.set(.sendHighWaterMark(100_000))
        try socket.set(.receiveHighWaterMark(100_000))
        let endpoints = [home.defaultEndpoint] + binds
        if let bad = endpoints.first(where: { !$0.hasPrefix("ipc://") && !$0.hasPrefix("tcp://") }) {
            throw RuntimeError("cannot bind \(bad): the scheduler binds ipc:// and tcp:// endpoints only")
        }
        // ipc first, without security (the socket lives in a 0700 directory); then CURVE for tcp.
        for endpoint in endpoints.filter({ $0.hasPrefix("ipc://") }) { try Self.bind(socket, endpoint, logger) }
        let tcp = endpoints.filter { $0.hasPrefix("tcp://") }
        guard !tcp.isEmpty else {
            zap = nil
            handshakes = nil
            return
        }
        guard let pair = curveKey, let allowList else {
            throw RuntimeError(
                "tcp endpoints are CURVE-encrypted: give --curve-key "
                    + "(make one with `stowctl keys generate scheduler`) and --allow-keys")
        }
        guard let secret = Curve.decode(pair.secretKey) else {
            throw RuntimeError("invalid scheduler CURVE secret key")
        }
        zap = try ZAPHandler(context: context, allowList: allowList, logger: logger, clock: clock)
        let monitor = "inproc://stowage.scheduler.handshakes"
        try socket.monitor(monitor, events: [.handshakeFailedNoDetail, .handshakeFailedProtocol])
        let events = try context.socket(.pair)
        try events.connect(monitor)
        handshakes = events
        try socket.set(.zapDomain("stowage"))
        try socket.set(.curveServer(true))
        try socket.set(.curveSecretKey(secret))
        logger.info(
            "CURVE on tcp endpoints",
            metadata: [
                "publicKey": "\(pair.publicKey)", "allowList": "\(allowList.path)",
                "allowedKeys": "\(allowList.keys().count)", "roles": "\(allowList.roleCounts())",
            ])
        for endpoint in tcp { try Self.bind(socket, endpoint, logger) }
    }

    private static func bind(_ socket: Socket, _ endpoint: String, _ logger: Logger) throws {
        try checkEndpoint(endpoint)
        if endpoint.hasPrefix("ipc://") { unlink(String(endpoint.dropFirst(6))) }  // libzmq leaves stale files
        do { try socket.bind(endpoint) } catch {
            throw RuntimeError("cannot bind \(endpoint): \(error). Is another scheduler running for this STOWAGE_HOME?")
        }
        logger.info("listening", metadata: ["endpoint": "\(endpoint)"])
    }

    /// Waits up to 100 ms for a message, a wake-up, a ZAP request or a failed handshake; returns whether the
    /// socket is readable and how many connections were refused meanwhile (by ZAP, or before it).
    func poll() throws -> (readable: Bool, refused: Int) {
        var items: [PollItem] = [.socket(socket, .readable), .fileDescriptor(waker.fd, .readable)]
        if let zap, let handshakes { items += [zap.pollItem, .socket(handshakes, .readable)] }
        let ready = try Poller.poll(items, timeoutMilliseconds: 100)
        if ready[1].contains(.readable) { waker.drain() }
        var refused = 0
        if ready.count > 3, let zap, let handshakes {
            if ready[2].contains(.readable) {
                let before = zap.refused
                zap.drain()
                refused = zap.refused - before
            }
            if ready[3].contains(.readable) {
                while let frames = try? handshakes.receive(dontWait: true) {
                    if SocketEvent(frames: frames) != nil { refused += 1 }
                }
            }
        }
        return (ready[0].contains(.readable), refused)
    }

    /// The next waiting message and the ZAP user id of its peer (nil over ipc), without blocking.
    func receive() -> (frames: [[UInt8]], userID: String?)? {
        guard let message = try? socket.receive(dontWait: true, property: "User-Id") else { return nil }
        return (message.frames, message.property)
    }

    /// Sends a message whose first frame is the peer's identity; false if the peer is gone.
    func send(_ frames: [[UInt8]]) throws {
        if let outlet {
            guard outlet.send(frames) else { throw RuntimeError("peer gone") }
            return
        }
        try socket.send(frames, dontWait: true)
    }

    func close() {
        socket.close(linger: 200)
        handshakes?.close()
        zap?.close()
    }
}
