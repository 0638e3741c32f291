import StowageProtocol

/// The life of one title as a state machine: the only place that says which states follow which.
///
/// A pure value built from the title's stored fields; ``handle(_:now:)`` takes what happened, moves the
/// title (state, why it waits, its error, when it ended) and returns what the scheduler must do about it.
/// An event the current state does not accept is an ``IllegalTransition``, never a silent write: the
/// record stays as it was and the caller learns what was asked of which state.
///
/// The moves, in the order a download lives them:
/// requested -planned-> licensing -queued-> requested -tookSlot-> downloading -onlyChecksLeft-> verifying
/// -allVerified-> completed (-reverify-> verifying -badFilesFound-> completed, with the error);
/// licensing -preloaded-> licensed -queued-> requested;
/// licensing -recordingStarted-> recording -recordingEnded-> downloading; any unfinished state -suspended->
/// suspended -resumed-> requested / licensing / recording; any state -failed-> failed, -canceled-> canceled.
public struct TitleLifecycle: Sendable, Equatable {
    /// What happened to a title.
    public enum Event: Sendable, Equatable {
        /// Its source was resolved into a plan: a license comes next.
        case planned
        /// Licensed without downloading (`submit --preload-only`).
        case preloaded
        /// Licensed: its work is queued and it waits for a "titles at once" slot.
        case queued
        /// Its first segment work went out: it holds a slot.
        case tookSlot
        /// Licensed as a recording: the live playlists are reloaded from now on.
        case recordingStarted
        /// The recording ended (the stream's end, the duration, `stop`): what it found is fetched.
        case recordingEnded
        /// Nothing is left to fetch, only checks.
        case onlyChecksLeft
        /// Every file is verified and the offline playlists are written.
        case allVerified
        /// `verify`: a completed title's files go back to the integrity workers.
        case reverify
        /// A verify run (or a scrub) found files that fail their check: the title is completed, not playable.
        case badFilesFound(TitleError)
        /// It cannot go on.
        case failed(TitleError)
        /// The operator canceled it.
        case canceled
        /// It waits: for `resume`, for space or for a host (`waitingHost`) to answer.
        case suspended(SuspendedReason, waitingHost: String?, error: TitleError?)
        /// It carries on from what is on disk, in the state what it holds calls for (``ResumeFacts``).
        case resumed(ResumeFacts)
    }

    /// What the scheduler does about a move.
    public enum Effect: Sendable, Equatable {
        /// Call back the title's work in flight and forget what was queued (bytes on disk are kept).
        case stopWork
        /// The title will not move again: forget every per-title memory (pacing, retries, reloads, caches).
        case forget
        /// Remove the title's files and reset its resources (the record is kept).
        case removeFiles
        /// Record the move in the title's events and the log, and tell subscribers.
        case moved(from: TitleState, to: TitleState, error: TitleError?)
        /// A suspended title waits for something else now: record it and tell subscribers.
        case waitsFor(SuspendedReason)
    }

    /// An event the title's state does not accept.
    public struct IllegalTransition: Error, Sendable, Equatable, CustomStringConvertible {
        public var state: TitleState
        public var event: Event
        public var description: String { "a \(state.rawValue) title cannot take \(event)" }
    }

    public private(set) var state: TitleState
    public private(set) var suspendedReason: SuspendedReason?
    /// When it was first suspended (wall clock; kept across changes of reason).
    public private(set) var suspendedAt: Double?
    /// The `host:port` it (or its license renewal) waits for.
    public private(set) var waitingHost: String?
    /// When it reached a final state (wall clock).
    public private(set) var endedAt: Double?
    /// Why it failed, or why it waits.
    public private(set) var error: TitleError?
    /// A renewal of its license waits for the network (then `waitingHost` outlives a suspension).
    public var renewalWaits: Bool

    public init(
        state: TitleState, suspendedReason: SuspendedReason? = nil, suspendedAt: Double? = nil,
        waitingHost: String? = nil, endedAt: Double? = nil, error: TitleError? = nil, renewalWaits: Bool = false
    ) {
        self.state = state
        self.suspendedReason = suspendedReason
        self.suspendedAt = suspendedAt
        self.waitingHost = waitingHost
        self.endedAt = endedAt
        self.error = error
        self.renewalWaits = renewalWaits
    }

    /// Takes one event at wall-clock time `now`: the table of every transition.
    public mutating func handle(_ event: Event, now: Double) throws -> [Effect] {
        switch (state, event) {
        case (.requested, .planned):
            return move(to: .licensing, now: now)
        case (.licensing, .preloaded):
            return move(to: .licensed, now: now)
        case (.licensing, .queued), (.licensed, .queued):
            return move(to: .requested, now: now)
        case (.requested, .tookSlot):
            return move(to: .downloading, now: now)
        case (.licensing, .recordingStarted), (.licensed, .recordingStarted), (.requested, .recordingStarted):
            return move(to: .recording, now: now)
        case (.recording, .recordingEnded):
            return move(to: .downloading, now: now)
        case (.requested, .onlyChecksLeft), (.downloading, .onlyChecksLeft):
            return move(to: .verifying, now: now)
        case (.verifying, .onlyChecksLeft), (.requested, .queued), (.recording, .recordingStarted):
            return []  // already there
        case (.requested, .allVerified), (.licensing, .allVerified), (.downloading, .allVerified),
            (.verifying, .allVerified):
            return move(to: .completed, now: now)
        case (.completed, .reverify):
            return move(to: .verifying, now: now)
        case (.verifying, .badFilesFound(let error)):
            return move(to: .completed, error: error, now: now)
        case (.completed, .badFilesFound(let error)):
            self.error = error  // a scrub: the title stays completed
            return []
        case (.failed, .failed), (.canceled, .canceled):
            return []
        case (let from, .failed(let error)) where from != .canceled:
            return [.stopWork] + move(to: .failed, error: error, now: now)
        case (_, .canceled):
            let reason = TitleError(code: .canceled, message: "canceled by the operator")
            return [.stopWork] + move(to: .canceled, error: reason, now: now) + [.removeFiles]
        case (.suspended, .suspended(let reason, let host, let error)):
            suspendedReason = reason
            suspendedAt = suspendedAt ?? now
            waitingHost = host
            self.error = error
            return [.stopWork, .waitsFor(reason)]
        case (let from, .suspended(let reason, let host, let error)) where !from.isFinal:
            suspendedReason = reason
            suspendedAt = now
            waitingHost = host
            return [.stopWork] + move(to: .suspended, error: error, now: now)
        case (.suspended, .resumed(let facts)), (.failed, .resumed(let facts)):
            let next = facts.next
            error = nil
            endedAt = nil
            waitingHost = nil
            return move(to: next, now: now)
        default:
            break
        }
        throw IllegalTransition(state: state, event: event)
    }

    /// The move itself: a final state ends the title; leaving `suspended` (or ending) clears why it waited.
    private mutating func move(to next: TitleState, error: TitleError? = nil, now: Double) -> [Effect] {
        let from = state
        state = next
        if next.isFinal { endedAt = now }
        if from == .suspended || next.isFinal {
            suspendedReason = nil
            suspendedAt = nil
            if !renewalWaits || next.isFinal { waitingHost = nil }
        }
        if let error { self.error = error }
        return [.moved(from: from, to: next, error: error)] + (next.isFinal ? [.forget] : [])
    }
}
