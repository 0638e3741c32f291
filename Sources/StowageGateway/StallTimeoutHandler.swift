import NIOCore

/// Closes a connection whose client stopped reading: the socket's send buffer stayed full (the channel not
/// writable) for `timeout` without a break. Hummingbird's idle timeout covers a connection with no request in
/// progress; a stalled client sits in the middle of a response, holding its memory and descriptor, and is cut
/// here instead. A slow client that keeps reading makes the channel writable again and is never cut.
final class StallTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            scheduled?.cancel()
            scheduled = nil
        } else if scheduled == nil {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            scheduled = context.eventLoop.scheduleTask(in: timeout) {
                loopBound.value.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
    }
}
