import Foundation
import StowageProtocol
import Synchronization

/// Hands each title event to every current listener (the `/events` streams). A listener that falls behind
/// loses the oldest events, never blocks the relay.
public final class EventHub: Sendable {
    private let listeners = Mutex<[UUID: AsyncStream<TitleEvent>.Continuation]>([:])

    /// A hub with no listeners.
    public init() {}

    /// A new stream of the events broadcast from now on; it ends when the caller stops iterating.
    public func stream() -> AsyncStream<TitleEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: TitleEvent.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.listeners.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }

    /// Sends `event` to every listener.
    public func broadcast(_ event: TitleEvent) {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// Ends every stream (shutdown).
    public func finish() {
        for continuation in listeners.withLock({ Array($0.values) }) { continuation.finish() }
    }

    /// How many listeners there are.
    public var count: Int { listeners.withLock { $0.count } }
}
