import Foundation
import StowageProtocol
import ZeroMQ

/// `stowctl`'s connection to the scheduler: request/reply with ids and a timeout, and event subscriptions.
public final class SchedulerClient {
    private let context: Context
    private let socket: Socket
    public let endpoint: String

    /// `curve` is required for a tcp endpoint (see ``CurveClientKeys/resolve(endpoint:keyFile:serverKey:)``).
    public init(endpoint: String, curve: CurveClientKeys? = nil) throws {
        try checkEndpoint(endpoint)
        self.endpoint = endpoint
        context = try Context()
        socket = try context.socket(.dealer)
        try socket.set(.maxMessageSize(WireProtocol.maxMessageBytes))
        try curve?.apply(to: socket)
        try socket.connect(endpoint)
    }

    deinit { socket.close(linger: 0) }

    /// Sends `request` and waits for its answer, typed as the operation's reply.
    ///
    /// Throws ``ReplyError`` when the scheduler refuses (its error, with its code) or answers with another kind
    /// of reply, and ``RuntimeError`` when it does not answer within `timeout` seconds.
    public func request<Request: SchedulerRequest>(_ request: Request, timeout: Double = 10) throws -> Request.Reply {
        try request.decode(exchange(request.operation, timeout: timeout))
    }

    /// Sends one operation and waits for its reply, whatever its kind: ``request(_:timeout:)`` without the typing.
    public func exchange(_ operation: ClientOperation, timeout: Double = 10) throws -> ReplyBody {
        let id = UUID().uuidString
        try socket.send(FrameCodec.encode(.request, ClientRequest(requestID: id, operation: operation)))
        let deadline = monotonic() + timeout
        while monotonic() < deadline {
            let ready = try Poller.poll(
                [.socket(socket, .readable)],
                timeoutMilliseconds: Int((deadline - monotonic()) * 1000) + 1)
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
        throw RuntimeError(
            "no answer from the scheduler at \(endpoint) within \(Int(timeout)) s: is stowage-scheduler "
                + "running (Deploy/start.sh) with the same STOWAGE_HOME?")
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
