import Dispatch
import Foundation
import Logging
import StowageProtocol
import StowageRuntime
import Synchronization

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

    /// One request, answered off the concurrency pool: the scheduler's error keeps its code, a reply of another
    /// kind is a 500, and a scheduler that does not answer a 503 (all ``GatewayError``).
    func request<Request: SchedulerRequest>(_ request: Request) async throws -> Request.Reply {
        let timeout = self.timeout
        let result: Result<Request.Reply, GatewayError> = await withCheckedContinuation { continuation in
            queue.async {
                let answer = self.client.withLock { client -> Result<Request.Reply, GatewayError> in
                    do {
                        return .success(try client.request(request, timeout: timeout))
                    } catch let error as ReplyError {
                        switch error {
                        case .refused(let refusal): return .failure(GatewayError(refusal))
                        case .unexpected(let reply):
                            return .failure(
                                GatewayError(
                                    .internalServerError, .internal, "unexpected reply from the scheduler: \(reply)"))
                        }
                    } catch {
                        return .failure(GatewayError(.serviceUnavailable, .internal, "\(error)"))
                    }
                }
                continuation.resume(returning: answer)
            }
        }
        return try result.get()
    }

    public func authenticate(_ credential: DeviceCredential) async throws -> DevicePrincipal {
        try await request(.authenticate(credential))
    }

    public func peerManifest(token: String) async throws -> PeerManifest {
        try await request(.peerManifest(token: token))
    }

    public func lookup(id: String?, url: String?) async throws -> TitleStatus {
        try await request(.lookup(id: id, url: url))
    }

    public func status(token: String) async throws -> TitleStatus { try await request(.status(token: token)) }

    public func list() async throws -> [TitleStatus] { try await request(.list(state: nil)) }

    public func playable(token: String) async throws -> PlayAuthorization { try await request(.playable(token: token)) }

    public func playOn(token: String, device: String?, playID: String) async throws -> PlayAuthorization {
        let call: SchedulerCall<PlayAuthorization> =
            device.map { .playOn(token: token, device: $0, playID: playID) } ?? .play(token: token, playID: playID)
        return try await request(call)
    }

    public func key(token: String, index: Int) async throws -> [UInt8] {
        try await request(.key(token: token, index: index))
    }

    public func played(token: String, seconds: Double, reportID: String) async throws {
        try await request(.played(token: token, seconds: seconds, reportID: reportID))
    }

    public func license(token: String) async throws -> LicenseReport { try await request(.license(token: token)) }

    public func manage(_ action: TitleAction, token: String) async throws {
        switch action {
        case .pause: _ = try await request(.pause(token: token))
        case .resume: _ = try await request(.resume(token: token))
        case .renew: _ = try await request(.renew(token: token, terms: nil, licenseURL: nil))
        case .delete: try await request(.delete(token: token))
        case .stop: _ = try await request(.stop(token: token))
        }
    }

    public func redeemPairing(code: String) async throws -> PairingGrant {
        try await request(.pairRedeem(code: code))
    }

    public func pairDevice(name: String) async throws -> DevicePairing { try await request(.devicePair(name: name)) }

    public func devices() async throws -> [DeviceInfo] { try await request(.devices) }

    public func revokeDevice(name: String) async throws { try await request(.deviceRevoke(name: name)) }

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
