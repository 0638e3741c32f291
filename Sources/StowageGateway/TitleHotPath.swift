import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Answers a connection's plain segment requests on its event loop (``Gateway/hotAnswer(_:)``) and passes every
/// other request on to Hummingbird, unchanged. ``GatewayChannel`` puts it in every plain HTTP connection, or
/// refuses the connection.
///
/// It sits right above Hummingbird's connection state handler, which so still sees every request and response
/// (keep-alive, `Connection: close`, the idle timeout); its answers go down through the HTTP encoder to the
/// ``FileRegionWriter``, which sends the file with `sendfile`. Answers leave in the order the requests came: a
/// request is answered here only while none passed on is still unanswered, and only while the connection is
/// writable (a client that stops reading gets its requests queued up there, where writes wait for it).
final class TitleHotPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let gateway: Gateway
    /// Requests passed on whose response has not ended.
    private var passedOn = 0
    /// The answer to the request being read, written at its end (its body, if any, is dropped).
    private var answering: Gateway.HotAnswer?

    init(gateway: Gateway) { self.gateway = gateway }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOn == 0, context.channel.isWritable, let answer = gateway.hotAnswer(request) {
                answering = answer
                gateway.traffic.answeredHot()
                return
            }
            passedOn += 1
            context.fireChannelRead(data)
        case .body:
            if answering == nil { context.fireChannelRead(data) }
        case .end:
            guard let answer = answering else {
                context.fireChannelRead(data)
                return
            }
            answering = nil
            context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), passedOn > 0 { passedOn -= 1 }
        context.write(data, promise: promise)
    }
}
