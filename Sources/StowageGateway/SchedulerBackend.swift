import Dispatch
import Foundation
import Logging
import StowageProtocol
import StowageRuntime
import Synchronization
import ZeroMQ

/// ``GatewayBackend`` over ZeroMQ: one `SchedulerClient` for requests, owned by a serial queue (its socket is
/// not thread-safe, and its requests block, so they never run on an event loop or the concurrency pool), and
/// a second one on a thread of its own for the event subscription (``eventRelay(logger:)``).
public final class SchedulerBackend: GatewayBackend {
    private let client: Mutex<SchedulerClient>
    private let queue = DispatchQueue(label: "stowage-gateway.scheduler")
    private let connect: @Sendable () throws -> SchedulerClient
    private let hub = EventHub()
    private let timeout: Double

    /// `connect` makes a new client (called once now, once more for the event relay's thread).
    public init(timeout: Double = 5, connect: @escaping @Sendable () throws -> SchedulerClient) throws {
        self.connect = connect
        self.timeout = timeout
        client = Mutex(try connect())
    }

    /// One request, answered off the concurrency pool; a scheduler error becomes a ``GatewayError``.
    func request(_ operation: ClientOperation) async throws -> ReplyBody {
        let timeout = self.timeout
        let result: Result<ReplyBody, GatewayError> = await withCheckedContinuation { continuation in
            queue.async {
                let answer = self.client.withLock { client -> Result<ReplyBody, GatewayError> in
                    do {
                        return .success(try client.request(operation, timeout: timeout))
                    } catch {
                        return .failure(GatewayError(.serviceUnavailable, .internal, "\(error)"))
                    }
                }
                continuation.resume(returning: answer)
            }
        }
        let reply = try result.get()
        if case .error(let error) = reply { throw GatewayError(error) }
        return reply
    }

    private func unexpected(_ reply: ReplyBody) -> GatewayError {
        GatewayError(.internalServerError, .internal, "unexpected reply from the scheduler: \(reply)")
    }

    public func authenticate(_ credential: DeviceCredential) async throws -> DevicePrincipal {
        let reply = try await request(.authenticate(credential))
        guard case .principal(let principal) = reply else { throw unexpected(reply) }
        return principal
    }

    public func lookup(id: String?, url: String?) async throws -> TitleStatus {
        let reply = try await request(.lookup(id: id, url: url))
        guard case .title(let status) = reply else { throw unexpected(reply) }
        return status
    }

    public func status(token: String) async throws -> TitleStatus {
        let reply = try await request(.status(token: token))
        guard case .title(let status) = reply else { throw unexpected(reply) }
        return status
    }

    public func list() async throws -> [TitleStatus] {
        let reply = try await request(.list(state: nil))
        guard case .titles(let titles) = reply else { throw unexpected(reply) }
        return titles
    }

    public func playable(token: String) async throws -> PlayAuthorization {
        let reply = try await request(.playable(token: token))
        guard case .play(let authorization) = reply else { throw unexpected(reply) }
        return authorization
    }

    public func playOn(token: String, device: String?) async throws -> PlayAuthorization {
        let operation: ClientOperation = device.map { .playOn(token: token, device: $0) } ?? .play(token: token)
        let reply = try await request(operation)
        guard case .play(let authorization) = reply else { throw unexpected(reply) }
        return authorization
    }

    public func key(token: String, index: Int) async throws -> [UInt8] {
        let reply = try await request(.key(token: token, index: index))
        guard case .key(let text) = reply, let data = Data(base64Encoded: text) else { throw unexpected(reply) }
        return Array(data)
    }

    public func played(token: String, seconds: Double) async throws {
        _ = try await request(.played(token: token, seconds: seconds))
    }

    public func license(token: String) async throws -> LicenseReport {
        let reply = try await request(.license(token: token))
        guard case .license(let report) = reply else { throw unexpected(reply) }
        return report
    }

    public func manage(_ action: TitleAction, token: String) async throws {
        switch action {
        case .pause: _ = try await request(.pause(token: token))
        case .resume: _ = try await request(.resume(token: token))
        case .renew: _ = try await request(.renew(token: token, terms: nil, licenseURL: nil))
        case .delete: _ = try await request(.delete(token: token))
        }
    }

    public func titleEvents() -> AsyncStream<TitleEvent> { hub.stream() }

    /// The event subscription as a service: a thread with its own client subscribes to every title, renews
    /// the subscription about every second and relays each event to the ``titleEvents()`` streams.
    public func eventRelay(logger: Logger) -> PollLoopService {
        let stop = ShutdownSignal()
        let connect = self.connect, hub = self.hub
        return PollLoopService(name: "stowage-gateway-events", stop: stop) {
            defer { hub.finish() }
            var client: SchedulerClient?
            var renewed = 0.0
            while !stop.isRequested {
                do {
                    if client == nil { client = try connect() }
                    let now = Date().timeIntervalSince1970
                    if now - renewed >= 1 {
                        try client?.subscribe(tokens: [])
                        renewed = now
                    }
                    if let event = try client?.nextEvent(timeout: 0.5) { hub.broadcast(event) }
                } catch {
                    logger.warning("event subscription failed; retrying", metadata: ["error": "\(error)"])
                    client = nil
                    Thread.sleep(forTimeInterval: 1)
                }
            }
        }
    }
}
