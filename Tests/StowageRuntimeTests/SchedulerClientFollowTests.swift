import Foundation
import StowageProtocol
import StowageRuntime
import Synchronization
import Testing
import ZeroMQ

/// ``SchedulerClient`` with several endpoints over real ZeroMQ sockets. The schedulers here are ROUTER sockets of
/// the test that answer as design.md fixes the wire (a standby answers every request with `.standby`, naming the
/// leader); two real schedulers, one of them a standby, come with the election (the lead's takeover tests).
@Suite("Scheduler client follows the leader", .serialized)
struct SchedulerClientFollowTests {
    /// A scheduler's socket: answers each request with `answer` (nil: says nothing), counting what it got.
    final class FakeScheduler: Sendable {
        let endpoint: String
        let asked = Mutex<[ClientOperation]>([])
        private let stop = Atomic<Bool>(false)
        private let bound = Atomic<Int>(0)  // 1 bound, -1 failed
        private let answer: @Sendable (ClientOperation) -> ReplyBody?

        init(_ endpoint: String, answer: @escaping @Sendable (ClientOperation) -> ReplyBody?) throws {
            self.endpoint = endpoint
            self.answer = answer
            Thread { [self] in serve() }.start()
            let deadline = ContinuousClock.now + .seconds(5)
            while bound.load(ordering: .acquiring) == 0 && ContinuousClock.now < deadline { usleep(1000) }
            guard bound.load(ordering: .acquiring) == 1 else { throw RuntimeError("cannot bind \(endpoint)") }
        }

        private func serve() {
            guard let context = try? Context(), let socket = try? context.socket(.router),
                (try? socket.bind(endpoint)) != nil
            else { return bound.store(-1, ordering: .releasing) }
            bound.store(1, ordering: .releasing)
            defer { socket.close(linger: 0) }
            while !stop.load(ordering: .relaxed) {
                guard let ready = try? Poller.poll([.socket(socket, .readable)], timeoutMilliseconds: 50),
                    ready[0].contains(.readable)
                else { continue }
                while let frames = try? socket.receive(dontWait: true), frames.count > 1 {
                    guard let envelope = try? FrameCodec.decode(Array(frames.dropFirst())),
                        let request = try? FrameCodec.body(ClientRequest.self, from: envelope)
                    else { continue }
                    asked.withLock { $0.append(request.operation) }
                    guard let body = answer(request.operation) else { continue }
                    let reply = FrameCodec.encode(.reply, ClientReply(requestID: request.requestID, result: body))
                    try? socket.send([frames[0]] + reply)
                }
            }
        }

        func close() { stop.store(true, ordering: .relaxed) }
        var count: Int { asked.withLock { $0.count } }
    }

    func ipc(_ name: String) -> String {
        "ipc:///tmp/stw-follow-\(getpid())-\(name)-\(UInt16.random(in: 0...9999)).ipc"
    }

    /// Runs `body` (which blocks in `poll` for seconds) on a thread of its own and returns what it returned: a
    /// thread of the concurrency pool held that long starves other suites' tasks (two threads on this machine).
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Sends `operations` in turn with one client of `endpoints`: each one's reply or refusal, and the endpoint the
    /// client asks first afterwards.
    static func exchanges(
        _ endpoints: [String], _ operations: [ClientOperation], timeout: Double
    ) async throws -> (results: [Result<ReplyBody, Failure>], preferred: String) {
        try await blocking {
            let client = try SchedulerClient(endpoints: endpoints)
            let results = operations.map { operation in
                Result { () throws(Failure) -> ReplyBody in
                    do { return try client.exchange(operation, timeout: timeout) } catch {
                        throw Failure(unreachable: error as? SchedulerUnreachable, text: "\(error)")
                    }
                }
            }
            return (results, client.endpoint)
        }
    }

    /// A request's failure, carried back from ``blocking(_:)``'s thread.
    struct Failure: Error, Sendable {
        var unreachable: SchedulerUnreachable?
        var text: String
    }

    /// The ``SchedulerUnreachable`` a request ended with (an issue when it was answered, or failed otherwise).
    static func unreachable(_ result: Result<ReplyBody, Failure>) throws -> SchedulerUnreachable {
        switch result {
        case .success(let body): throw RuntimeError("answered \(body), expected no scheduler")
        case .failure(let failure):
            guard let unreachable = failure.unreachable else { throw RuntimeError(failure.text) }
            return unreachable
        }
    }

    @Test func aStandbySendsTheClientToTheLeaderAndTheNextRequestGoesThereFirst() async throws {
        let leader = try FakeScheduler(ipc("leader")) { _ in .ok }
        let standby = try FakeScheduler(ipc("standby")) { [endpoint = leader.endpoint] _ in
            .standby(StandbyAnswer(term: 7, leaderEndpoints: [endpoint]))
        }
        // Next in the list after the standby, but not the leader it names: never asked.
        let other = try FakeScheduler(ipc("other")) { _ in .ok }
        defer { [leader, standby, other].forEach { $0.close() } }
        let (results, preferred) = try await Self.exchanges(
            [standby.endpoint, other.endpoint, leader.endpoint], [.cancel(token: "t"), .workers], timeout: 10)
        #expect(try results.map { try $0.get() } == [.ok, .ok])
        #expect(standby.count == 1 && leader.count == 2, "the standby refused once, then straight to the leader")
        #expect(other.count == 0)
        #expect(preferred == leader.endpoint)
    }

    @Test func nothingListeningMovesOnAndAWholeRoundWithoutALeaderIsOneError() async throws {
        let live = try FakeScheduler(ipc("live")) { _ in .ok }
        defer { live.close() }
        // A request that changes something goes on too: nothing listened, so it cannot have been applied.
        let moved = try await Self.exchanges([ipc("dead1"), live.endpoint], [.pause(token: "t")], timeout: 10)
        #expect(try moved.results[0].get() == .ok)
        let standby = try FakeScheduler(ipc("standby")) { _ in .standby(StandbyAnswer(term: 3, leaderEndpoints: [])) }
        defer { standby.close() }
        let started = ContinuousClock.now
        let lost = try await Self.exchanges([ipc("dead2"), standby.endpoint], [.workers], timeout: 10)
        #expect(ContinuousClock.now - started < .seconds(5), "said at once, not after the timeout")
        let error = try Self.unreachable(lost.results[0])
        #expect(error.message.contains("nothing listening") && error.message.contains("standby, no leader known"))
        #expect(error.message.contains(standby.endpoint))
    }

    /// A takeover under way: both schedulers answer as standbys with no leader known for a second, then one leads.
    /// A client that waits out a takeover (stowctl's) gets its answer; one that does not (the gateway's) is told at
    /// once, having asked each once.
    @Test func aClientThatWaitsOutATakeoverIsAnsweredOnceAStandbyLeads() async throws {
        let started = ContinuousClock.now
        let promoted: @Sendable (ClientOperation) -> ReplyBody? = { _ in
            ContinuousClock.now - started > .seconds(1) ? .ok : .standby(StandbyAnswer(term: 4, leaderEndpoints: []))
        }
        let a = try FakeScheduler(ipc("a")) { _ in .standby(StandbyAnswer(term: 4, leaderEndpoints: [])) }
        let b = try FakeScheduler(ipc("b"), answer: promoted)
        defer { [a, b].forEach { $0.close() } }
        let impatient = try await Self.exchanges([a.endpoint, b.endpoint], [.workers], timeout: 10)
        #expect(try Self.unreachable(impatient.results[0]).message.contains("no leader known"))
        let answer = try await Self.blocking { () -> ReplyBody in
            let client = try SchedulerClient(endpoints: [a.endpoint, b.endpoint])
            client.takeoverWait = 15
            return try client.exchange(.pause(token: "t"), timeout: 10)
        }
        #expect(answer == .ok)
        #expect(b.asked.withLock { $0.last } == .pause(token: "t") && a.count >= 2, "asked round after round")
        // A standby that names a leader none of the endpoints reach: no takeover to wait for, said at once.
        let elsewhere = try FakeScheduler(ipc("elsewhere")) { _ in
            .standby(StandbyAnswer(term: 5, leaderEndpoints: ["tcp://other-host:7700"]))
        }
        defer { elsewhere.close() }
        let asked = ContinuousClock.now
        let refused = try await Self.blocking { () -> String in
            let client = try SchedulerClient(endpoints: [elsewhere.endpoint, a.endpoint])
            client.takeoverWait = 15
            do { _ = try client.exchange(.workers, timeout: 10) } catch { return "\(error)" }
            return "answered"
        }
        #expect(ContinuousClock.now - asked < .seconds(3) && refused.contains("tcp://other-host:7700"), "\(refused)")
    }

    @Test func aSilentSchedulerGetsAReadOrAnIdRepeatedElsewhereButNeverAnotherChange() async throws {
        let silent = try FakeScheduler(ipc("silent")) { _ in nil }
        let live = try FakeScheduler(ipc("live")) { _ in .ok }
        defer { [silent, live].forEach { $0.close() } }
        let endpoints = [silent.endpoint, live.endpoint]
        let read = try await Self.exchanges(endpoints, [.status(token: "t")], timeout: 4)
        #expect(try read.results[0].get() == .ok, "a read goes on to the next")
        #expect(silent.count == 1 && live.count == 1)
        let report = ClientOperation.played(token: "t", seconds: 2, reportID: "r1")
        let reported = try await Self.exchanges(endpoints, [report], timeout: 4)
        #expect(try reported.results[0].get() == .ok, "a report with an id is applied once: it goes on")
        #expect(live.asked.withLock { $0.last } == report)
        let changed = try await Self.exchanges(endpoints, [.pause(token: "t")], timeout: 4)
        let error = try Self.unreachable(changed.results[0])
        #expect(error.message.contains("may have been applied"), "\(error.message)")
        #expect(live.count == 2, "the change the silent one may have applied is not sent to another")
    }

    /// A TCP port that accepts connections in the kernel and never speaks (a frozen process): the ZeroMQ handshake
    /// never completes, so a request sent there never left the client.
    func frozenPort() throws -> (fd: Int32, endpoint: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard bound else { throw RuntimeError("cannot listen on 127.0.0.1") }
        return (fd, "tcp://127.0.0.1:\(UInt16(bigEndian: addr.sin_port))")
    }

    @Test func aChangeSentToAFrozenSchedulerThatNeverHandshookGoesOnToTheNext() async throws {
        let frozen = try frozenPort()
        defer { close(frozen.fd) }
        let live = try FakeScheduler(ipc("live")) { _ in .ok }
        defer { live.close() }
        let sent = try await Self.exchanges([frozen.endpoint, live.endpoint], [.pause(token: "t")], timeout: 4)
        #expect(try sent.results[0].get() == .ok, "it never reached the frozen one")
        #expect(live.asked.withLock { $0 } == [.pause(token: "t")])
    }

    @Test func oneEndpointIsAsBefore() async throws {
        let dead = ipc("alone")
        let alone = try await Self.exchanges([dead], [.workers], timeout: 10)
        let error = try Self.unreachable(alone.results[0])
        #expect(error.message == SchedulerUnreachable.nothingListening(at: dead).message)
    }
}
