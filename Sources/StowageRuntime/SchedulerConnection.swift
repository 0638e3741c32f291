import Foundation
import StowageProtocol
import ZeroMQ

/// One DEALER socket to one scheduler endpoint, with its connection events: what ``SchedulerClient`` sends a
/// request over and reads the reply (and subscription events) from. Tells apart the three ways a request can go
/// unanswered, which decide whether it may be sent to another scheduler: nothing listens (refused, no ipc
/// socket), no handshake (a frozen process: the request never left this socket), or connected and silent (the
/// request may have been applied).
final class SchedulerConnection {
    let endpoint: String
    private let socket: Socket
    /// The socket's connection events.
    private let events: Socket
    /// Whether the socket has ever connected; until then a retried connect means nothing listens.
    private var everConnected = false
    /// Whether a handshake with the scheduler is done on the connection now up (lost again on a disconnect).
    private var handshaken = false
    /// Set when a connect was refused since the last one that succeeded.
    private var refused = false

    /// How an exchange ended.
    enum Outcome {
        case reply(ReplyBody)
        /// Nothing listens at the endpoint (and nothing ever did on this socket).
        case nothingListening
        /// No reply in time; `reached` is whether the request can have reached a scheduler (a handshake was done
        /// while it waited to go out, or after).
        case noAnswer(reached: Bool)
    }

    init(context: Context, endpoint: String, curve: CurveClientKeys?) throws {
        try checkEndpoint(endpoint)
        let socket = try context.socket(.dealer)
        try socket.set(.maxMessageSize(WireProtocol.maxMessageBytes))
        if endpoint.hasPrefix("tcp://") { try curve?.apply(to: socket) }
        let monitor = "inproc://stowage.client.events.\(UUID().uuidString)"
        try socket.monitor(monitor, events: [.connected, .connectRetried, .handshakeSucceeded, .disconnected])
        let events = try context.socket(.pair)
        try events.connect(monitor)
        try socket.connect(endpoint)
        self.endpoint = endpoint
        self.socket = socket
        self.events = events
    }

    deinit {
        socket.close(linger: 0)
        events.close(linger: 0)
    }

    /// Reads the connection events waiting. Every event is read first: a client made before its scheduler was up
    /// (the gateway's) has a refusal queued ahead of the connection that followed, and must not fail for it.
    private func readEvents() throws {
        while let frames = try events.receive(dontWait: true) {
            guard let event = SocketEvent(frames: frames) else { continue }
            if event.event.contains(.connected) {
                everConnected = true
                refused = false
            }
            if event.event.contains(.connectRetried) { refused = true }
            if event.event.contains(.handshakeSucceeded) { handshaken = true }
            if event.event.contains(.disconnected) { handshaken = false }
        }
    }

    /// Whether a connect failed and none ever succeeded: nothing listens at the endpoint. A scheduler that went
    /// away after answering is waited for (it may be restarting).
    var nothingListening: Bool { refused && !everConnected }

    /// Sends `request` and waits up to `wait` seconds for its reply. Events that arrive meanwhile go to `event`.
    func exchange(_ request: ClientRequest, wait: Double, event: (TitleEvent) -> Void) throws -> Outcome {
        try readEvents()
        var reached = handshaken
        try socket.send(FrameCodec.encode(.request, request))
        let deadline = monotonic() + wait
        while monotonic() < deadline {
            try readEvents()
            reached = reached || handshaken
            if nothingListening { return .nothingListening }
            let ready = try Poller.poll(
                [.socket(socket, .readable), .socket(events, .readable)],
                timeoutMilliseconds: Int((deadline - monotonic()) * 1000) + 1)
            guard ready[0].contains(.readable) else { continue }
            while let frames = try socket.receive(dontWait: true) {
                guard let envelope = try? FrameCodec.decode(frames) else { continue }
                if envelope.command == .event, let body = try? FrameCodec.body(TitleEvent.self, from: envelope) {
                    event(body)
                    continue
                }
                guard envelope.command == .reply,
                    let reply = try? FrameCodec.body(ClientReply.self, from: envelope),
                    reply.requestID == request.requestID
                else { continue }
                return .reply(reply.result)
            }
        }
        try readEvents()
        return .noAnswer(reached: reached || handshaken)
    }

    /// Waits up to `timeout` seconds for the next event.
    func nextEvent(timeout: Double) throws -> TitleEvent? {
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

    /// Sends without waiting (a subscription's renewal).
    func post(_ request: ClientRequest) throws {
        try socket.send(FrameCodec.encode(.request, request), dontWait: true)
    }
}
