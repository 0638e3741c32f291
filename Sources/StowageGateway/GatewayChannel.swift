import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import StowageProtocol

/// A plain HTTP/1 connection of the gateway: Hummingbird's, plus the ``FileRegionWriter`` right after its HTTP/1
/// encoder (title files go out with `sendfile`) and the ``TitleHotPath`` right above its connection state handler
/// (a play's segments skip the router).
///
/// Both go in while the connection is set up, or the connection is refused with an error logged: never served
/// without them. Without the writer a file's answer would carry its slice's field instead of its bytes; without
/// the hot path every request would reach the router, and nothing would show it (it answers the same, slower).
struct GatewayChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let gateway: Gateway

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let gateway = self.gateway
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            do {
                try Self.complete(channel.pipeline.syncOperations, gateway: gateway)
            } catch {
                gateway.logger.error(
                    "connection refused: \(error)", metadata: ["client": "\(channel.remoteAddress?.description ?? "")"])
                channel.close(promise: nil)
                throw error
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }

    /// Adds the writer and the hot path to a pipeline Hummingbird's HTTP/1 channel has set up; throws a
    /// ``GatewayError`` naming what is missing.
    static func complete(_ pipeline: ChannelPipeline.SynchronousOperations, gateway: Gateway) throws {
        do {
            try FileRegionWriter.install(in: pipeline)
        } catch {
            throw GatewayError(
                .internalServerError, .internal,
                "the connection has no HTTP/1 response encoder to put the sendfile writer after (\(error))")
        }
        do {
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(TitleHotPath(gateway: gateway), position: .after(state))
        } catch {
            throw GatewayError(
                .internalServerError, .internal,
                "the connection has no Hummingbird connection state handler to put the hot path above (\(error))")
        }
    }
}
