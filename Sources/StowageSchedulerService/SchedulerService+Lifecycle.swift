import Logging
import ServiceLifecycle
import StowageProtocol
import StowageRuntime

extension SchedulerService {
    /// The scheduler as a swift-service-lifecycle `Service`, for a `ServiceGroup` that turns SIGTERM and SIGINT
    /// into a graceful stop.
    ///
    /// `SchedulerService` itself is not `Sendable` (its ROUTER socket belongs to one thread), so it is not the
    /// `Service`: this value is. ``run()`` builds the scheduler on a thread of its own, where its socket is
    /// created, bound and polled, and serves there until graceful shutdown (or cancellation) triggers the
    /// ``ShutdownSignal`` the loop watches. The loop then logs that state is persisted and closes its sockets.
    public struct Runner: Service, CustomStringConvertible {
        /// What the scheduler is built with.
        public let options: Options
        /// The scheduler's logger.
        public let logger: Logger
        private let stop = ShutdownSignal()
        private let onReady: @Sendable () -> Void

        /// `onReady` runs on the scheduler's thread once every endpoint is bound, before it serves (e.g. to
        /// write the pid file).
        public init(options: Options, logger: Logger, onReady: @escaping @Sendable () -> Void = {}) {
            self.options = options
            self.logger = logger
            self.onReady = onReady
        }

        /// The service's name in the group's logs (and its thread's).
        public var description: String { "stowage-scheduler" }

        /// The side tasks that run beside the loop as services of the same group, to be listed before the runner
        /// (the group stops services in reverse order: the loop first, then what feeds it): the `--catalog` fetcher,
        /// which hands what it fetched to the loop through its ``CatalogFeed``.
        public var companions: [any Service] {
            [options.catalog.fetcher(logger: logger, pace: options.answerPace)].compactMap { $0 }
        }

        /// Serves until graceful shutdown, as leader or standby of the schedulers sharing its store (``LeaderLoop``);
        /// throws what stops the scheduler from starting (a bind, the store).
        public func run() async throws {
            let (options, logger, stop, onReady) = (options, logger, stop, onReady)
            try await PollLoopService(name: description, stop: stop) {
                try LeaderLoop(options: options, shutdown: stop, logger: logger, onReady: onReady).run()
            }.run()
        }
    }
}
