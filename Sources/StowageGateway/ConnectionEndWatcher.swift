import NIOCore

/// Tells when a connection's client has gone: its side closed (the gateway's connections allow half-closure, so a
/// client that closes its socket shows only as `inputClosed` while a response is still being written) or the
/// connection closed. A response that never ends by itself — an `/events` stream, which writes only when a
/// title changes — ends then, and gives back its place at once rather than at its next write.
final class ConnectionEndWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private var promise: EventLoopPromise<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        promise = context.eventLoop.makePromise()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { promise?.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.succeed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise?.succeed()
    }

    /// Completes when the client of `channel` has gone (its close, when the channel has no watcher).
    static func ended(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.pipeline.handler(type: ConnectionEndWatcher.self)
            .flatMap { $0.promise?.futureResult ?? channel.closeFuture }
            .flatMapError { _ in channel.closeFuture }
    }
}
