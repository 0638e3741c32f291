import ArgumentParser
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

extension AsyncParsableCommand {
    /// Parses the command line and runs the command, asynchronously, from a `main.swift` or a `@main` type's
    /// `main()`. A usage error (a bad flag, or a bad `STOWAGE_<OPTION>` refused by ``EnvironmentRule`` in
    /// `validate()`) is written to stderr and exits 2, as `stowctl`'s do, not argument-parser's 64: every
    /// Stowage executable answers a usage error alike.
    public static func topLevelMain() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                // Started with no argument at all (as the systemd units start them), argument-parser follows an
                // option group's error (a bad STOWAGE_HOME) with the whole help; the error and a pointer to
                // --help say it better.
                let name = configuration.commandName ?? "the command"
                let text =
                    CommandLine.arguments.count > 1
                    ? fullMessage(for: error)
                    : "Error: \(message(for: error))\n  See '\(name) --help' for more information."
                FileHandle.standardError.write(Data((text + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
