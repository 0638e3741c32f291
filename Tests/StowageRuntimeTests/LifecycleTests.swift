import Foundation
import Logging
import StowageProtocol
import StowageRuntime
import Synchronization
import Testing
import ZeroMQ

@Suite("Stop flag, poll-loop services and the worker's graceful stop", .serialized)
struct LifecycleTests {
    @Test func shutdownSignalWakesWakersRegisteredBeforeAndAfter() throws {
        let stop = ShutdownSignal()
        let early = Waker(), late = Waker()
        stop.notify(early)
        #expect(!stop.isRequested)
        #expect(try Poller.poll([.fileDescriptor(early.fd, .readable)], timeoutMilliseconds: 0)[0].isEmpty)
        stop.trigger()
        #expect(stop.isRequested)
        #expect(try Poller.poll([.fileDescriptor(early.fd, .readable)], timeoutMilliseconds: 0)[0] == .readable)
        stop.notify(late)
        #expect(try Poller.poll([.fileDescriptor(late.fd, .readable)], timeoutMilliseconds: 0)[0] == .readable)
    }

    @Test func pollLoopRunsOnAThreadAndStopsWhenCancelled() async throws {
        let stop = ShutdownSignal()
        let onMainThread = Mutex<Bool?>(nil)
        let service = PollLoopService(name: "test-loop", stop: stop) {
            onMainThread.withLock { $0 = Thread.isMainThread }
            let waker = Waker()
            stop.notify(waker)
            while !stop.isRequested {
                _ = try Poller.poll([.fileDescriptor(waker.fd, .readable)], timeoutMilliseconds: 10_000)
            }
        }
        let running = Task { try await service.run() }
        try await Task.sleep(for: .milliseconds(100))
        let began = ContinuousClock.now
        running.cancel()
        try await running.value
        #expect(ContinuousClock.now - began < .seconds(5), "the stop woke the loop instead of its poll timeout")
        #expect(stop.isRequested)
        #expect(onMainThread.withLock { $0 } == false)
    }

    @Test func pollLoopErrorsReachTheCaller() async {
        struct Boom: Error {}
        let service = PollLoopService(name: "failing-loop", stop: ShutdownSignal()) { throw Boom() }
        await #expect(throws: Boom.self) { try await service.run() }
    }

    /// A task in flight when the stop comes finishes: its result goes out before `BYE`, and the loop
    /// returns as soon as it has (not at the end of the grace period).
    @Test func workerFinishesTasksInFlightBeforeItStops() throws {
        let scheduler = try FakeScheduler(answersHeartbeats: true)
        let stop = ShutdownSignal()
        let taken = Ended()
        let runtime = try WorkerRuntime(
            options: .init(kind: .license, capacity: 1, endpoint: scheduler.endpoint),
            handler: SlowHandler(delay: .milliseconds(500), started: taken), shutdown: stop,
            logger: Logger(label: "test"))
        let ended = Ended()
        Thread {
            try? runtime.run()
            ended.mark()
        }.start()
        let worker = try scheduler.expect(.register, within: 5).identity
        try scheduler.send(worker, FrameCodec.encode(.task, Self.task("t1")))
        // The stop comes once the task is in flight (a task that arrives after the stop is not taken).
        #expect(taken.wait(seconds: 5), "the worker took the task")
        stop.trigger()
        let began = monotonic()
        let result = try scheduler.expect(.result, within: 5)
        #expect(try FrameCodec.body(TaskResult.self, from: result.envelope).taskID == "t1")
        _ = try scheduler.expect(.bye, within: 5)
        #expect(ended.wait(seconds: 5))
        #expect(monotonic() - began < 3, "the worker stopped once its task was done, not after the grace period")
    }

    /// A scheduler that falls silent: the worker cancels its tasks, waits for them to end (woken by each task
    /// as it leaves), drops their stale results and registers again on a fresh socket.
    @Test func workerAbandonsStaleTasksAndRegistersAgain() throws {
        let scheduler = try FakeScheduler()
        let stop = ShutdownSignal()
        let runtime = try WorkerRuntime(
            options: .init(kind: .license, capacity: 1, endpoint: scheduler.endpoint),
            handler: SlowHandler(delay: .seconds(60)), shutdown: stop, logger: Logger(label: "test"))
        let ended = Ended()
        Thread {
            try? runtime.run()
            ended.mark()
        }.start()
        let first = try scheduler.expect(.register, within: 5).identity
        try scheduler.send(first, FrameCodec.encode(.task, Self.task("stale")))
        // No heartbeats from us: after liveness × heartbeat plus the first backoff it reconnects.
        let again = try scheduler.expect(.register, within: 15)
        #expect(again.identity != first)
        #expect(!again.skipped.contains(.result), "the cancelled task's result is stale and was dropped")
        stop.trigger()
        #expect(ended.wait(seconds: 5))
    }

    /// A task of a deposed scheduler's term (older than one the worker has seen) is dropped: it never runs and
    /// gets no result; tasks of the current term still run.
    @Test func workerDropsTasksOfAnOlderTerm() throws {
        let scheduler = try FakeScheduler(answersHeartbeats: true)
        let stop = ShutdownSignal()
        let runtime = try WorkerRuntime(
            options: .init(kind: .license, capacity: 4, endpoint: scheduler.endpoint),
            handler: SlowHandler(delay: .milliseconds(10)), shutdown: stop, logger: Logger(label: "test"))
        let ended = Ended()
        Thread {
            try? runtime.run()
            ended.mark()
        }.start()
        let worker = try scheduler.expect(.register, within: 5).identity
        var results: [String] = []
        func resultsUntil(_ id: String) throws {
            while results.last != id {
                let result = try scheduler.expect(.result, within: 5)
                results.append(try FrameCodec.body(TaskResult.self, from: result.envelope).taskID)
            }
        }
        try scheduler.send(worker, FrameCodec.encode(.task, Self.task("new", term: 5)))
        try resultsUntil("new")
        try scheduler.send(worker, FrameCodec.encode(.task, Self.task("deposed", term: 4)))
        try scheduler.send(worker, FrameCodec.encode(.task, Self.task("again", term: 5)))
        try scheduler.send(worker, FrameCodec.encode(.task, Self.task("newer", term: 6)))
        try resultsUntil("newer")
        try scheduler.send(worker, FrameCodec.encode(.task, Self.task("stale", term: 5)))
        try scheduler.send(worker, FrameCodec.encode(.task, Self.task("last", term: 6)))
        try resultsUntil("last")
        #expect(Set(results) == ["new", "again", "newer", "last"], "\(results)")
        stop.trigger()
        #expect(ended.wait(seconds: 5))
    }

    static func task(_ id: String, term: Int64? = nil) -> TaskAssignment {
        let work = LicenseWork(url: "http://x/", headers: [], keyURIs: [])
        return TaskAssignment(taskID: id, token: "tok", work: .license(work), term: term)
    }
}

/// Sleeps `delay` (or until cancelled), then fails the task: enough to see it end.
private struct SlowHandler: TaskHandler {
    let delay: Duration
    /// Marked when a task begins: the worker took it (a stop after that finds it in flight).
    var started: Ended? = nil

    func handle(_ task: TaskAssignment, progress: @escaping @Sendable (Int64) -> Void) async -> Outcome {
        started?.mark()
        try? await Task.sleep(for: delay)
        return .failed(TaskFailure(code: .internal, message: "done", retryable: false))
    }
}

/// Set once by the worker's thread when `run()` returns.
private final class Ended: Sendable {
    private let done = Atomic<Bool>(false)

    func mark() { done.store(true, ordering: .releasing) }

    func wait(seconds: Double) -> Bool {
        let deadline = monotonic() + seconds
        while monotonic() < deadline {
            if done.load(ordering: .acquiring) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return done.load(ordering: .acquiring)
    }
}

/// A ROUTER on an ipc endpoint, used from the test's thread only; answers nothing.
private final class FakeScheduler {
    let endpoint: String
    private let context: Context
    private let socket: Socket
    /// Answers each heartbeat while it waits (as the scheduler's own do), so the worker never finds it silent,
    /// however slowly a loaded machine runs the test; false for a scheduler that falls silent.
    private let answersHeartbeats: Bool

    init(answersHeartbeats: Bool = false) throws {
        self.answersHeartbeats = answersHeartbeats
        endpoint = "ipc:///tmp/stw-rt-\(UInt32.random(in: 0...UInt32.max)).ipc"
        context = try Context()
        socket = try context.socket(.router)
        try socket.bind(endpoint)
    }

    deinit {
        socket.close(linger: 0)
        unlink(String(endpoint.dropFirst("ipc://".count)))
    }

    func send(_ identity: [UInt8], _ frames: [[UInt8]]) throws { try socket.send([identity] + frames) }

    /// The next message with `command` from any worker, and the commands skipped on the way.
    func expect(_ command: Command, within seconds: Double) throws
        -> (identity: [UInt8], envelope: Envelope, skipped: [Command])
    {
        let deadline = monotonic() + seconds
        var skipped: [Command] = []
        while monotonic() < deadline {
            let ready = try Poller.poll([.socket(socket, .readable)], timeoutMilliseconds: 50)
            guard ready[0].contains(.readable) else { continue }
            while let frames = try socket.receive(dontWait: true) {
                let envelope = try FrameCodec.decode(Array(frames.dropFirst()))
                if envelope.command == command { return (frames[0], envelope, skipped) }
                if answersHeartbeats, envelope.command == .heartbeat {
                    try socket.send([frames[0]] + FrameCodec.encode(.heartbeat))
                }
                skipped.append(envelope.command)
            }
        }
        throw RuntimeError("no \(command.rawValue) within \(seconds) s (saw \(skipped.map(\.rawValue)))")
    }
}
