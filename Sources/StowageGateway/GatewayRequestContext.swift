import Hummingbird
import NIOCore

/// What the gateway's middleware and routes need of a request's context: the client's address (for the
/// throttle) and the identity the credential middleware found.
public protocol GatewayContext: RequestContext {
    /// The client's IP address (the throttle's key); "unknown" when the transport has none.
    var clientAddress: String { get }
    /// Set by the credential middleware before any route that needs a credential runs.
    var identity: Identity? { get set }
    /// Completes when the client has gone (nil: no connection, as in the router's tests): a response that may
    /// never end by itself (`/events`) ends then.
    var clientGone: EventLoopFuture<Void>? { get }
}

extension GatewayContext {
    public var clientGone: EventLoopFuture<Void>? { nil }
}

/// The gateway's request context: the client's address comes from the connection itself (never from a
/// header a client could forge, such as `X-Forwarded-For`).
public struct GatewayRequestContext: GatewayContext {
    public var coreContext: CoreRequestContextStorage
    public let clientAddress: String
    public var identity: Identity?
    private let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        identity = nil
        channel = source.channel
    }

    /// Looked up only when asked (``ConnectionEndWatcher``): one hop to the connection's event loop.
    public var clientGone: EventLoopFuture<Void>? { ConnectionEndWatcher.ended(channel) }

    /// The largest request body decoded (`/login`'s form).
    public var maxUploadSize: Int { Gateway.maxBodyBytes }
}
