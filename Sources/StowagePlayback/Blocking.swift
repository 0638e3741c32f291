import Dispatch

/// Runs blocking work (a request to the scheduler over ZeroMQ) on a Dispatch worker thread — never on an
/// event loop or a thread of the concurrency pool — and waits for it without blocking.
public func offloaded<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}
