import ArgumentParser
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// How every long-running Stowage process runs: its parts as swift-service-lifecycle services in one
/// `ServiceGroup`, which turns SIGTERM and SIGINT into a graceful shutdown.
public enum Lifecycle {
    /// Runs `services` until they end, or until SIGTERM or SIGINT asks for a graceful stop.
    ///
    /// Services stop in reverse order, each after the one behind it has ended: list the poll loop last, so it
    /// stops first while the metrics endpoint still answers. A service that ends, or fails, stops the others
    /// gracefully; the first error is rethrown.
    public static func run(_ services: [any Service], logger: Logger) async throws {
        let configuration = ServiceGroupConfiguration(
            services: services.map {
                .init(
                    service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                    failureTerminationBehavior: .gracefullyShutdownGroup)
            },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// A blocking poll loop as a `Service`.
///
/// ``run()`` starts `body` on a dedicated thread and waits for it to return: ZeroMQ sockets belong to one
/// thread, so the loop creates, polls and closes its own there. Graceful shutdown (or cancellation) calls
/// ``ShutdownSignal/trigger()`` on `stop`, which the loop checks and whose wakers it polls.
public struct PollLoopService: Service, CustomStringConvertible {
    /// The thread's name, also the service's name in the group's logs.
    public let description: String
    private let stop: ShutdownSignal
    private let body: @Sendable () throws -> Void

    /// `body` runs on its own thread and returns once `stop` is requested (or throws).
    public init(name: String, stop: ShutdownSignal, body: @escaping @Sendable () throws -> Void) {
        description = name
        self.stop = stop
        self.body = body
    }

    /// Runs the loop on its thread until it returns; graceful shutdown or cancellation asks it to stop.
    public func run() async throws {
        let stop = self.stop
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await onThread(named: description, body)
            } onGracefulShutdown: {
                stop.trigger()
            }
        } onCancel: {
            stop.trigger()
        }
    }
}

/// Runs blocking `body` on a new thread (not on the concurrency pool) and waits for it without blocking.
func onThread(named name: String, _ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let thread = Thread {
            do {
                try body()
                continuation.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.name = name
        // The size of a main thread's stack, where these loops used to run.
        thread.stackSize = 8 << 20
        thread.start()
    }
}

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
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await channel.closeFuture.get()
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}

extension AsyncParsableCommand {
    /// Parses the command line and runs the command, asynchronously, from a `main.swift`.
    ///
    /// In top-level code `await Command.main()` resolves to `ParsableCommand`'s synchronous `main()`; from an
    /// async function, as here, it is `AsyncParsableCommand`'s.
    public static func topLevelMain() async { await main() }
}
