import Dispatch
import Synchronization

/// Runs async work from a synchronous command and waits for it.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let outcome: Result<T, Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        box.set(outcome)
        done.signal()
    }
    done.wait()
    return try box.get()
}

private final class ResultBox<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, Error>?>(nil)
    func set(_ r: Result<T, Error>) { value.withLock { $0 = r } }
    func get() throws -> T { try value.withLock { $0 }!.get() }
}
