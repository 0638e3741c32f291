import Foundation
import StowageProtocol
import ZeroMQ

/// `stowctl`'s connection to the scheduler: request/reply with ids and a timeout, and event subscriptions.
public final class SchedulerClient {
    private let context: Context
    private let socket: Socket
    /// The socket's connection events: a connect that failed before any succeeded means no scheduler listens.
    private let events: Socket
    /// Whether the socket has ever connected; until then a retried connect is reported at once.
    private var everConnected = false
    public let endpoint: String

    /// `curve` is required for a tcp endpoint (see ``CurveClientKeys/resolve(endpoint:keyFile:serverKey:)``).
    public init(endpoint: String, curve: CurveClientKeys? = nil) throws {
        try checkEndpoint(endpoint)
        let context = try Context()
        let socket = try context.socket(.dealer)
        try socket.set(.maxMessageSize(WireProtocol.maxMessageBytes))
        try curve?.apply(to: socket)
        let monitor = "inproc://stowage.client.events.\(UUID().uuidString)"
        try socket.monitor(monitor, events: [.connected, .connectRetried])
        let events = try context.socket(.pair)
        try events.connect(monitor)
        try socket.connect(endpoint)
        self.endpoint = endpoint
        self.context = context
        self.socket = socket
        self.events = events
    }

    deinit {
        socket.close(linger: 0)
        events.close(linger: 0)
    }

    /// Reads the connection events waiting; throws when a connect failed and none ever succeeded (nothing
    /// listens at the endpoint: refused, or no ipc socket), so a missing scheduler is said at once. A scheduler
    /// that went away after answering is waited for as before (it may be restarting).
    private func checkConnection() throws {
        var refused = false
        while let frames = try events.receive(dontWait: true) {
            guard let event = SocketEvent(frames: frames) else { continue }
            if event.event.contains(.connected) {
                everConnected = true
                refused = false
            }
            if event.event.contains(.connectRetried) { refused = true }
        }
        // Every event is read first: a client made before its scheduler was up (the gateway's) has a refusal
        // queued ahead of the connection that followed, and must not fail for it.
        if refused, !everConnected { throw SchedulerUnreachable.nothingListening(at: endpoint) }
    }

    /// Sends `request` and waits for its answer, typed as the operation's reply.
    ///
    /// Throws ``ReplyError`` when the scheduler refuses (its error, with its code) or answers with another kind
    /// of reply, and ``SchedulerUnreachable`` at once when nothing listens at the endpoint, or when it does not
    /// answer within `timeout` seconds.
    public func request<Request: SchedulerRequest>(_ request: Request, timeout: Double = 10) throws -> Request.Reply {
        try request.decode(exchange(request.operation, timeout: timeout))
    }

    /// Sends one operation and waits for its reply, whatever its kind: ``request(_:timeout:)`` without the typing.
    public func exchange(_ operation: ClientOperation, timeout: Double = 10) throws -> ReplyBody {
        let id = UUID().uuidString
        try socket.send(FrameCodec.encode(.request, ClientRequest(requestID: id, operation: operation)))
        let deadline = monotonic() + timeout
        try checkConnection()
        while monotonic() < deadline {
            let ready = try Poller.poll(
                [.socket(socket, .readable), .socket(events, .readable)],
                timeoutMilliseconds: Int((deadline - monotonic()) * 1000) + 1)
            if ready[1].contains(.readable) { try checkConnection() }
            guard ready[0].contains(.readable) else { continue }
            while let frames = try socket.receive(dontWait: true) {
                guard let envelope = try? FrameCodec.decode(frames), envelope.command == .reply,
                    let reply = try? FrameCodec.body(ClientReply.self, from: envelope), reply.requestID == id
                else {
                    continue
                }
                return reply.result
            }
        }
        throw SchedulerUnreachable.noAnswer(from: endpoint, within: timeout)
    }

    /// Waits up to `timeout` seconds for the next event. Renews the subscription as it goes.
    public func nextEvent(timeout: Double) throws -> TitleEvent? {
        let deadline = monotonic() + timeout
        while monotonic() < deadline {
            let ready = try Poller.poll(
                [.socket(socket, .readable)],
                timeoutMilliseconds: max(1, Int((deadline - monotonic()) * 1000)))
            guard ready[0].contains(.readable) else { continue }
            while let frames = try socket.receive(dontWait: true) {
                guard let envelope = try? FrameCodec.decode(frames), envelope.command == .event,
                    let event = try? FrameCodec.body(TitleEvent.self, from: envelope)
                else { continue }
                return event
            }
        }
        return nil
    }

    /// Starts or renews a subscription without waiting for the reply (it arrives among the events).
    public func subscribe(tokens: [String]) throws {
        let request = ClientRequest(requestID: "sub-" + UUID().uuidString, operation: .subscribe(tokens: tokens))
        try socket.send(FrameCodec.encode(.request, request), dontWait: true)
    }
}
