import NIOCore

/// Closes a connection whose client stopped reading: the socket's send buffer stayed full (the channel not
/// writable) for `timeout` without a break. Hummingbird's idle timeout covers a connection with no request in
/// progress; a stalled client sits in the middle of a response, holding its memory and descriptor, and is cut
/// here instead. A slow client that keeps reading makes the channel writable again and is never cut.
///
/// A busy connection turns unwritable and writable again for most responses it sends, so a change only notes
/// the time; one timer a connection, set at the first stall, looks again when the stall it knew of would end.
final class StallTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    /// When the channel last turned unwritable, while it still is.
    private var stalledSince: NIODeadline?
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stalledSince = nil
        } else if stalledSince == nil {
            stalledSince = context.eventLoop.now
            if timer == nil { arm(context, at: stalledSince! + timeout) }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Looks at `deadline`: a stall that began `timeout` ago closes the connection; a later one looks again when
    /// it would end; none leaves no timer.
    private func arm(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            guard let since = handler.stalledSince else { return }
            if since + handler.timeout <= context.eventLoop.now {
                context.close(promise: nil)
            } else {
                handler.arm(context, at: since + handler.timeout)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancel() }

    private func cancel() {
        timer?.cancel()
        timer = nil
        stalledSince = nil
    }
}
