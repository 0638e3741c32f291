/// The kinds of worker the scheduler hands work to.
public enum WorkerKind: String, Codable, Sendable, CaseIterable {
    case license, download, integrity
}

/// `REGISTER`: a worker announces itself on a fresh socket.
public struct Register: Codable, Sendable, Equatable {
    public var kind: WorkerKind
    /// Tasks it will run at once.
    public var capacity: Int
    public var host: String
    public var pid: Int32
    /// False when the process has run no task yet, so it holds no idle connections a restarted scheduler
    /// could not know about; nil (older workers) counts as true.
    public var mayHoldConnections: Bool?

    public init(kind: WorkerKind, capacity: Int, host: String, pid: Int32, mayHoldConnections: Bool? = nil) {
        self.kind = kind
        self.capacity = capacity
        self.host = host
        self.pid = pid
        self.mayHoldConnections = mayHoldConnections
    }
}

/// `REGISTERED`: the scheduler's acknowledgement.
public struct Registered: Codable, Sendable, Equatable {
    public var workerID: String
    public var heartbeatMilliseconds: Int

    public init(workerID: String, heartbeatMilliseconds: Int) {
        self.workerID = workerID
        self.heartbeatMilliseconds = heartbeatMilliseconds
    }
}

/// `TASK`: one lease of work. `taskID` is unique per attempt: a re-issued task gets a new id,
/// so a late result of a lost lease is recognised and ignored.
public struct TaskAssignment: Codable, Sendable, Equatable {
    public var taskID: String
    public var token: String
    public var work: Work
    /// The hosts and addresses this task may fetch from and which hosts get the title's headers (every request
    /// and every redirect is checked); nil = the defaults (any host, no inner address beyond the source's).
    public var scope: FetchScope?
    /// The leader's term that handed this task out (nil: a scheduler that predates leadership). A worker drops
    /// a task of a term older than the highest it has seen: that scheduler has been deposed.
    public var term: Int64?

    public init(taskID: String, token: String, work: Work, scope: FetchScope? = nil, term: Int64? = nil) {
        self.taskID = taskID
        self.token = token
        self.work = work
        self.scope = scope
        self.term = term
    }
}

/// `LIMITS`: this worker's share of the global limits (the scheduler splits the bandwidth cap across the
/// download workers and sends it again whenever the cap or the set of workers changes).
public struct WorkerLimits: Codable, Sendable, Equatable {
    /// Bytes per second this worker may receive across all its fetches; nil = unlimited.
    public var bytesPerSecond: Int64?
    public init(bytesPerSecond: Int64?) { self.bytesPerSecond = bytesPerSecond }
}

/// `CANCEL`: stop working on a task (its title was canceled); no result is expected.
public struct CancelTask: Codable, Sendable, Equatable {
    public var taskID: String
    public init(taskID: String) { self.taskID = taskID }
}

/// `RESULT`: the end of a task.
public struct TaskResult: Codable, Sendable, Equatable {
    public var taskID: String
    public var token: String
    public var outcome: Outcome

    public init(taskID: String, token: String, outcome: Outcome) {
        self.taskID = taskID
        self.token = token
        self.outcome = outcome
    }
}

/// `PROGRESS`: bytes received so far for a fetch still running (for live progress only; never persisted).
public struct TaskProgress: Codable, Sendable, Equatable {
    public var taskID: String
    public var token: String
    public var bytes: Int64

    public init(taskID: String, token: String, bytes: Int64) {
        self.taskID = taskID
        self.token = token
        self.bytes = bytes
    }
}

/// What a task produced.
public enum Outcome: Codable, Sendable, Equatable {
    case resolved(ResolvedPlan)
    case licensed(LicenseGrant)
    case fetched(FetchReport)
    /// The results of a `fetchBatch` task, item by item.
    case fetchedBatch(FetchBatchReport)
    case verified(VerifyReport)
    /// A live media playlist as fetched (`reload` work).
    case reloaded(ReloadReport)
    case failed(TaskFailure)
}

/// A task that did not succeed.
public struct TaskFailure: Codable, Sendable, Equatable, Error {
    public var code: ErrorCode
    public var message: String
    /// Whether trying again later may succeed (network faults, 5xx, short bodies).
    public var retryable: Bool
    /// Seconds the origin asked us to wait (`Retry-After` on 429/503); the host is slowed down too.
    public var retryAfter: Double?
    /// The origin host that failed, when the failure is the host's (for adaptive per-host concurrency).
    public var host: String?
    /// The attempt stored new bytes before failing (kept for the next attempt): the retry counter is reset.
    public var madeProgress: Bool?
    /// The HTTP status the origin answered, when the failure is an HTTP answer (401/403/410 on a segment or
    /// key make the scheduler re-resolve the title's playlists: signed URLs may have expired).
    public var status: Int?
    /// `host:port` that could not be reached, when the failure is one of connectivity (refused, reset,
    /// timed out, no such host, no route): the scheduler probes it and resumes the title when it answers.
    public var endpoint: String?
    /// The answer came, but more slowly than the pace limits allow (``BodyWatch`` cut it): a peer's copy that slow
    /// is taken from the origin instead.
    public var slowAnswer: Bool?

    public init(code: ErrorCode, message: String, retryable: Bool, retryAfter: Double? = nil, host: String? = nil) {
        self.code = code
        self.message = message
        self.retryable = retryable
        self.retryAfter = retryAfter
        self.host = host
    }
}

extension TaskFailure: CustomStringConvertible {
    public var description: String { "[\(code.rawValue)] \(message)" }
}
