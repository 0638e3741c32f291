import NIOPosix

/// Threads for calls that wait on the device (direct writes), so that tasks waiting on them do not hold the
/// cooperative pool's threads (one per core) while other fetches have bytes to process.
enum BlockingIO {
    /// Enough threads for the direct writes of a worker at its default concurrency to wait side by side.
    static let threads = 8

    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        return pool
    }()

    /// Runs `body` on one of the pool's threads and returns its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        // The pool is never shut down, so the work always runs.
        (try? await pool.runIfActive(body)) ?? body()
    }
}
