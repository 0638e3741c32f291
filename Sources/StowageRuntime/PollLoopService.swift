import Foundation
import ServiceLifecycle

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
        try await runUntilStopped({ try await onThread(named: description, body) }, stop: { stop.trigger() })
    }
}

/// Runs `body` until it returns; graceful shutdown (SIGTERM or SIGINT through the service group) or cancellation
/// calls `stop`, which must make `body` return. How every Stowage service ends, written once.
public func runUntilStopped(
    _ body: () async throws -> Void, stop: @escaping @Sendable () -> Void
) async throws {
    try await withTaskCancellationHandler {
        try await withGracefulShutdownHandler {
            try await body()
        } onGracefulShutdown: {
            stop()
        }
    } onCancel: {
        stop()
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
