import Hummingbird
import Synchronization

/// How many requests reached the router and how many the hot path answered instead, since the gateway started.
///
/// The hot path is an optimisation nobody sees when it is gone: the router answers the same. These counts are
/// what shows it working (a counted play's later segments never reach the router).
final class ServingCounts: Sendable {
    struct Counts: Equatable, Sendable {
        /// Requests the router was given (every request not answered on the connection).
        var routed = 0
        /// Requests answered on the connection's event loop (``TitleHotPath``).
        var hot = 0
    }

    private let counts = Mutex(Counts())

    var current: Counts { counts.withLock { $0 } }

    func routed() { counts.withLock { $0.routed += 1 } }
    func answeredHot() { counts.withLock { $0.hot += 1 } }
}

/// The router's responder, counting each request it is given (``ServingCounts/routed()``).
public struct CountingResponder<Base: HTTPResponder>: HTTPResponder {
    let base: Base
    let counts: ServingCounts

    public func respond(to request: Request, context: Base.Context) async throws -> Response {
        counts.routed()
        return try await base.respond(to: request, context: context)
    }
}
