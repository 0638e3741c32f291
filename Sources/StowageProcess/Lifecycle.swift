import Foundation
import Logging
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
