import NIOCore
import ServiceLifecycle
import StowageRuntime

/// A bound NIO server channel as a `Service`: it serves until graceful shutdown (or cancellation), then
/// closes.
public struct ChannelService: Service, CustomStringConvertible {
    /// The service's name in the group's logs.
    public let description: String
    /// The bound port.
    public let port: Int
    private let channel: any Channel

    /// Serves `channel`, bound to `port`, under `name`.
    public init(name: String, channel: any Channel, port: Int) {
        description = name
        self.channel = channel
        self.port = port
    }

    /// Waits until the channel closes; graceful shutdown or cancellation closes it.
    public func run() async throws {
        let channel = self.channel
        try await runUntilStopped({ try await channel.closeFuture.get() }, stop: { channel.close(promise: nil) })
    }
}
