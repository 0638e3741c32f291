import Foundation
import StowageProtocol
import ZeroMQ

/// A client's connection to the scheduler (`stowctl`, the gateway): request/reply with ids and a timeout, and
/// event subscriptions.
///
/// With several endpoints (the schedulers of a farm, one leading) it finds the leader, as ``LeaderSearch`` says:
/// a request goes to the endpoint that answered last; a standby's answer sends it to the leader named, nothing
/// listening to the next; a whole round without a leader is one ``SchedulerUnreachable`` naming what each said.
/// Each endpoint gets a share of the timeout (at least ``minimumWait`` seconds).
///
/// A request is sent again to another scheduler only when it cannot have been applied: a standby refused it, or
/// it never reached a scheduler (nothing listening, no handshake: the connection is closed, so the request queued
/// in it is dropped, never delivered late). A request that reached a scheduler and got no answer may have been
/// applied: it goes on to the next scheduler only when repeating it changes nothing
/// (``StowageProtocol/ClientOperation/isSafeToRepeat``: reads, and play reports with an id the scheduler applies
/// once); any other is not sent again, and its ``SchedulerUnreachable`` says its outcome is unknown.
///
/// One endpoint behaves as it always did: the whole timeout for it, nothing listening said at once.
public final class SchedulerClient {
    private let context: Context
    private let curve: CurveClientKeys?
    private var search: LeaderSearch
    private var connection: SchedulerConnection?
    /// Events that arrived while a reply was awaited, handed out first by ``nextEvent(timeout:)``.
    private var pendingEvents: [TitleEvent] = []
    /// The least wait any one endpoint gets when there are several.
    public static let minimumWait = 2.0
    /// With several endpoints, how long a request keeps looking for a leader (rounds ``roundPause`` apart) when a
    /// round found none, counted from its sending: a takeover under way ends within `--leader-lease` (10 s by
    /// default) of the leader's death. 0 (the default): one round, then the error. `stowctl` waits; the gateway,
    /// which serves from what it holds meanwhile, does not.
    public var takeoverWait: Double = 0
    /// The pause between two rounds that found no leader.
    static let roundPause = 0.3

    /// Every endpoint this client may ask.
    public var endpoints: [String] { search.endpoints }
    /// The endpoint asked first: the one that answered last.
    public var endpoint: String { search.endpoints[search.preferred] }

    /// One endpoint. `curve` is required for a tcp endpoint (``CurveClientKeys/resolve(endpoint:keyFile:serverKey:)``).
    public convenience init(endpoint: String, curve: CurveClientKeys? = nil) throws {
        try self.init(endpoints: [endpoint], curve: curve)
    }

    /// Several endpoints (at least one); `curve` applies to each tcp one (a farm's schedulers share a key pair).
    public init(endpoints: [String], curve: CurveClientKeys? = nil) throws {
        guard !endpoints.isEmpty else { throw RuntimeError("no scheduler endpoint given", code: .refused) }
        for endpoint in endpoints { try checkEndpoint(endpoint) }
        context = try Context()
        self.curve = curve
        search = LeaderSearch(endpoints: endpoints)
        connection = try SchedulerConnection(context: context, endpoint: endpoints[0], curve: curve)
    }

    /// The connection to `endpoint`, made now unless it is the one open.
    private func connect(_ endpoint: String) throws -> SchedulerConnection {
        if let connection, connection.endpoint == endpoint { return connection }
        connection = nil
        let made = try SchedulerConnection(context: context, endpoint: endpoint, curve: curve)
        connection = made
        return made
    }

    /// Sends `request` and waits for its answer, typed as the operation's reply.
    ///
    /// Throws ``ReplyError`` when the scheduler refuses (its error, with its code) or answers with another kind
    /// of reply, and ``SchedulerUnreachable`` when no scheduler answers (see the type's comment).
    public func request<Request: SchedulerRequest>(_ request: Request, timeout: Double = 10) throws -> Request.Reply {
        try request.decode(exchange(request.operation, timeout: timeout))
    }

    /// Sends one operation and waits for its reply, whatever its kind: ``request(_:timeout:)`` without the typing.
    public func exchange(_ operation: ClientOperation, timeout: Double = 10) throws -> ReplyBody {
        let single = search.endpoints.count == 1
        let deadline = monotonic() + timeout
        let lastRound = monotonic() + max(timeout, takeoverWait)
        var unreachableLeader = false
        var endpoint = search.begin()
        while true {
            let request = ClientRequest(requestID: UUID().uuidString, operation: operation)
            let wait =
                single
                ? timeout : max(Self.minimumWait, min(deadline - monotonic(), timeout / Double(search.endpoints.count)))
            let outcome = try connect(endpoint).exchange(request, wait: wait) { event in
                if pendingEvents.count < 10_000 { pendingEvents.append(event) }
            }
            let heard: LeaderSearch.Heard
            switch outcome {
            case .reply(.standby(let answer)):
                heard = .standby(answer)
                // A leader none of our endpoints reach: waiting for a takeover would not help.
                if !answer.leaderEndpoints.isEmpty, !answer.leaderEndpoints.contains(where: search.endpoints.contains) {
                    unreachableLeader = true
                }
            case .reply(let body):
                _ = search.heard(.answer)
                return body
            case .nothingListening:
                if single { throw SchedulerUnreachable.nothingListening(at: endpoint) }
                heard = .nothingListening
            case .noAnswer(let reached):
                if single { throw SchedulerUnreachable.noAnswer(from: endpoint, within: timeout) }
                guard !reached || operation.isSafeToRepeat else {
                    connection = nil
                    throw SchedulerUnreachable.outcomeUnknown(from: endpoint, within: wait)
                }
                heard = reached ? .noAnswer(seconds: wait) : .nothingListening
            }
            // Given up on: closed, so a request still queued in it is dropped rather than delivered late.
            if case .standby = heard {} else { connection = nil }
            switch search.heard(heard) {
            case .ask(let next): endpoint = next
            case .answered: preconditionFailure("only an answer ends the search")
            case .noLeader(let said):
                // Nothing was applied in this round (only refusals and requests that never arrived go on).
                guard takeoverWait > 0, !unreachableLeader, monotonic() + Self.roundPause < lastRound else {
                    throw SchedulerUnreachable.noLeader(said)
                }
                Thread.sleep(forTimeInterval: Self.roundPause)
                endpoint = search.begin()
            }
        }
    }

    /// Waits up to `timeout` seconds for the next event. Renews the subscription as it goes.
    public func nextEvent(timeout: Double) throws -> TitleEvent? {
        if !pendingEvents.isEmpty { return pendingEvents.removeFirst() }
        return try connect(endpoint).nextEvent(timeout: timeout)
    }

    /// Starts or renews a subscription. With one endpoint, without waiting for the reply (it arrives among the
    /// events); with several, as a request that finds the leader (a standby's subscription would carry nothing).
    public func subscribe(tokens: [String]) throws {
        guard search.endpoints.count > 1 else {
            let request = ClientRequest(requestID: "sub-" + UUID().uuidString, operation: .subscribe(tokens: tokens))
            return try connect(endpoint).post(request)
        }
        _ = try exchange(.subscribe(tokens: tokens), timeout: Self.minimumWait * Double(search.endpoints.count))
    }
}
