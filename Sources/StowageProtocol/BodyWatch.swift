import Foundation
import Synchronization

/// Runs one request beside a watchdog that cuts it when its answer breaks ``BodyLimits``: the request counts the
/// bytes it receives (``count(_:)``), the watchdog wakes a few times per window on the monotonic clock and, when
/// ``BodyPace`` says so, throws ``SlowAnswer``; the request's task is then canceled (its connection closed, its
/// slot free) and ``run(_:host:_:)`` throws that reason. A watchdog that never waits on the bytes themselves is what
/// catches a party that sends nothing at all after its head.
public final class BodyWatch: Sendable {
    private let received = Atomic<Int>(0)

    private init() {}

    /// Bytes of the answer arrived (head bytes need not be counted: the window is long beside a head).
    public func count(_ bytes: Int) { received.add(bytes, ordering: .relaxed) }

    /// `operation` under `limits`; `host` names the party in the reason.
    public static func run<T: Sendable>(
        _ limits: BodyLimits, host: String, _ operation: @escaping @Sendable (BodyWatch) async throws -> T
    ) async throws -> T {
        let watch = BodyWatch()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation(watch) }
            group.addTask {
                try await watch.guardPace(BodyPace(limits, host: host))
                return nil
            }
            do {
                while let next = try await group.next() {
                    if let result = next {
                        group.cancelAll()
                        return result
                    }
                }
            } catch {
                group.cancelAll()  // the request too, when the watchdog threw
                throw error
            }
            throw CancellationError()
        }
    }

    /// Sleeps a quarter window at a time (never past the total) and asks the pace; throws its reason.
    private func guardPace(_ pace: BodyPace) async throws {
        var pace = pace
        let clock = ContinuousClock()
        let start = clock.now
        let step = max(min(pace.limits.window / 4, 1), 0.05)
        while true {
            let elapsed = Self.seconds(clock.now - start)
            try await Task.sleep(for: .seconds(max(0.01, min(step, pace.limits.total - elapsed))))
            if let cut = pace.observe(at: Self.seconds(clock.now - start), bytes: received.load(ordering: .relaxed)) {
                throw cut
            }
        }
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
