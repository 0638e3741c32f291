import StowageProtocol
import StowageRuntime
import Testing

/// The client's choice of the scheduler to ask (``LeaderSearch``) and the reading of `--scheduler` lists
/// (``SchedulerEndpoints``).
@Suite("Leader search and endpoint lists")
struct LeaderSearchTests {
    let a = "tcp://a:7700", b = "tcp://b:7700", c = "tcp://c:7700"

    @Test func aRoundStartsWhereTheLastAnswerCameFromAndNothingListeningMovesOn() {
        var search = LeaderSearch(endpoints: [a, b, c])
        #expect(search.begin() == a)
        #expect(search.heard(.nothingListening) == .ask(b))
        #expect(search.heard(.answer) == .answered(b))
        #expect(search.begin() == b, "the next request starts at the one that answered")
        #expect(search.heard(.noAnswer(seconds: 3)) == .ask(c), "then the one after it")
        #expect(search.heard(.nothingListening) == .ask(a), "round the list")
        #expect(search.heard(.answer) == .answered(a))
        #expect(search.begin() == a)
    }

    @Test func aStandbySendsTheRequestToTheLeaderItNamesWhenItIsOneOfTheList() {
        var search = LeaderSearch(endpoints: [a, b, c])
        _ = search.begin()
        #expect(search.heard(.standby(StandbyAnswer(term: 4, leaderEndpoints: [c]))) == .ask(c), "not b: c leads")
        #expect(search.heard(.answer) == .answered(c))
        // A leader not in the list (or none known): the next endpoint.
        _ = search.begin()
        #expect(search.heard(.standby(StandbyAnswer(term: 5, leaderEndpoints: ["tcp://elsewhere:1"]))) == .ask(a))
        #expect(search.heard(.standby(StandbyAnswer(term: 5, leaderEndpoints: []))) == .ask(b))
    }

    @Test func aWholeRoundWithoutALeaderSaysWhatEachEndpointSaid() {
        var search = LeaderSearch(endpoints: [a, b, c])
        _ = search.begin()
        // a names c; c is silent; b names a and c, both asked already: the round ends.
        #expect(search.heard(.standby(StandbyAnswer(term: 2, leaderEndpoints: [c]))) == .ask(c))
        #expect(search.heard(.noAnswer(seconds: 2.5)) == .ask(b))
        guard case .noLeader(let said) = search.heard(.standby(StandbyAnswer(term: 2, leaderEndpoints: [a, c]))) else {
            Issue.record("the round did not end")
            return
        }
        #expect(said.map(\.endpoint) == [a, c, b], "each endpoint once, in the order asked")
        #expect(said[0].what == "standby (term 2); leader at \(c)")
        #expect(said[1].what == "no answer within 2.5 s")
        let error = SchedulerUnreachable.noLeader(said)
        #expect(error.code == .network)
        #expect(error.message.contains("\(a): standby (term 2)") && error.message.contains("\(c): no answer"))
        #expect(error.message.contains("--leader-lease"))
    }

    @Test func oneEndpointEndsItsRoundAtOnce() {
        var search = LeaderSearch(endpoints: [a])
        #expect(search.begin() == a)
        #expect(search.heard(.nothingListening) == .noLeader([.init(endpoint: a, what: search.saidText)]))
    }

    @Test func endpointListsAreReadOrRefusedNamingTheItem() throws {
        #expect(try SchedulerEndpoints.parse("tcp://a:7700") == ["tcp://a:7700"])
        #expect(try SchedulerEndpoints.parse("tcp://a:7700, ipc:///run/s.ipc") == ["tcp://a:7700", "ipc:///run/s.ipc"])
        let refusals: [(String, String)] = [
            ("tcp://a:7700,", "item 2 of 'tcp://a:7700,' is empty"),
            (",tcp://a:7700", "item 1 of ',tcp://a:7700' is empty"),
            ("tcp://a:7700,tcp://a:7700", "'tcp://a:7700' is named twice"),
            ("tcp://a:7700,http://b:7700", "'http://b:7700' is not an endpoint: write ipc://PATH or tcp://HOST:PORT"),
            ("tcp://a:7700,tcp://b", "'tcp://b' is not an endpoint: write ipc://PATH or tcp://HOST:PORT"),
        ]
        for (text, message) in refusals {
            #expect(throws: SchedulerEndpointsError(message)) { try SchedulerEndpoints.parse(text) }
        }
    }
}

extension LeaderSearch {
    /// What a lone endpoint with nothing listening is said to have done.
    fileprivate var saidText: String { "nothing listening (connection refused or no handshake)" }
}
