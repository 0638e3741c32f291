import StowageProtocol

/// Which scheduler a client asks next, as a value (no sockets, no clock), so the rule is tested on its own.
///
/// A request goes first to the endpoint that answered last (``preferred``). What that endpoint does decides the
/// next: an answer ends the search there; a standby's answer sends the request to the leader it names, when the
/// leader is one of the client's endpoints and not asked yet in this round, else to the next endpoint not asked;
/// nothing listening or no answer in time, the next. When every endpoint has been asked once without an answer the
/// round ends as ``SchedulerUnreachable`` naming what each one said.
public struct LeaderSearch: Sendable, Equatable {
    /// What one endpoint did with the request.
    public enum Heard: Sendable, Equatable {
        /// A reply other than a standby's: this is the leader (or the only scheduler).
        case answer
        /// A standby refused the request (not applied) and named the leader, if it knows one.
        case standby(StandbyAnswer)
        /// Nothing listens there (connection refused, no ipc socket), or no handshake in time: the request never
        /// reached a scheduler.
        case nothingListening
        /// Connected, and no answer within `seconds`.
        case noAnswer(seconds: Double)
    }

    /// What to do next.
    public enum Next: Sendable, Equatable {
        /// Send the request to this endpoint.
        case ask(String)
        /// The endpoint answered: done.
        case answered(String)
        /// Every endpoint was asked once and none led: what each said, in the order asked.
        case noLeader([Said])
    }

    /// One endpoint's part of a round that found no leader.
    public struct Said: Sendable, Equatable {
        public var endpoint: String
        public var what: String

        public init(endpoint: String, what: String) {
            self.endpoint = endpoint
            self.what = what
        }
    }

    /// The endpoints, in the order given.
    public let endpoints: [String]
    /// The endpoint that answered last: where each round starts.
    public private(set) var preferred: Int = 0
    /// The endpoint being asked.
    public private(set) var current: Int = 0
    /// What each endpoint asked in this round said.
    private var said: [Said] = []
    private var asked: Set<Int> = []

    /// `endpoints` must not be empty (``SchedulerEndpoints/parse(_:)`` gives at least one).
    public init(endpoints: [String]) {
        precondition(!endpoints.isEmpty, "a leader search needs an endpoint")
        self.endpoints = endpoints
    }

    /// Starts a round: the first endpoint to ask is the one that answered last.
    public mutating func begin() -> String {
        said = []
        asked = [preferred]
        current = preferred
        return endpoints[current]
    }

    /// What the endpoint being asked did; returns where the request goes next.
    public mutating func heard(_ heard: Heard) -> Next {
        let endpoint = endpoints[current]
        switch heard {
        case .answer:
            preferred = current
            return .answered(endpoint)
        case .standby(let answer):
            said.append(Said(endpoint: endpoint, what: Self.describe(answer, known: endpoints)))
            let endpoints = self.endpoints, asked = self.asked
            if let leader = answer.leaderEndpoints.compactMap({ endpoints.firstIndex(of: $0) })
                .first(where: { !asked.contains($0) })
            {
                return ask(leader)
            }
        case .nothingListening:
            said.append(Said(endpoint: endpoint, what: "nothing listening (connection refused or no handshake)"))
        case .noAnswer(let seconds):
            said.append(Said(endpoint: endpoint, what: "no answer within \(Self.seconds(seconds))"))
        }
        let order = endpoints.indices.map { (current + 1 + $0) % endpoints.count }
        guard let next = order.first(where: { !asked.contains($0) }) else { return .noLeader(said) }
        return ask(next)
    }

    private mutating func ask(_ index: Int) -> Next {
        asked.insert(index)
        current = index
        return .ask(endpoints[index])
    }

    /// A standby's answer in words: its term and the leader it named (or none known, or one not in the list).
    static func describe(_ answer: StandbyAnswer, known: [String]) -> String {
        guard !answer.leaderEndpoints.isEmpty else { return "standby, no leader known (term \(answer.term))" }
        let leader = answer.leaderEndpoints.joined(separator: ",")
        let listed = answer.leaderEndpoints.contains { known.contains($0) }
        return "standby (term \(answer.term)); leader at \(leader)"
            + (listed ? "" : ", which is not among --scheduler's endpoints")
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\((value * 10).rounded() / 10) s"
    }
}
