import Foundation
import Logging
import StowagePlayback
import StowageProtocol
import Synchronization

/// The gateway's playback state: the sessions (``PlaybackSessions``), each session's play authorisation,
/// the meters of media served, the streaming sources of titles still downloading, and the titles refused
/// because they can no longer be played (moved away, license ended, files or keys gone:
/// ``stopUnplayable(now:)``).
///
/// A lock, not an actor: a segment of a play already authorised is admitted without waiting
/// (``admitCounted(_:token:now:)``, the title hot path on an event loop); only a play's first media waits, for
/// the scheduler's `playOn`, outside the lock.
final class PlayState: Sendable {
    private struct State {
        var sessions: PlaybackSessions
        var authorizations: [Int: Task<PlayAuthorization, any Error>] = [:]
        /// Sessions whose play came back authorised and playable.
        var authorized: Set<Int> = []
        var meters: [String: PlayMeter] = [:]
        var streaming: [String: StreamingSource] = [:]
        var refused: [String: String] = [:]
        var reports = PlayReports()
        /// The number of the next play-time report (its id: ``runID`` and this).
        var nextReport = 1
    }

    /// This gateway process's own prefix of play and report ids: with a session's or report's number, an id no
    /// other gateway and no other run of this one uses.
    private let runID = UUID().uuidString.lowercased()

    private let state: Mutex<State>
    private let backend: any GatewayBackend
    private let sourceFetcher: (@Sendable () -> any PlaySourceFetcher)?
    private let logger: Logger

    /// `sourceFetcher` makes the fetcher of each title played while still downloading (nil: such a title
    /// serves only what is on disk).
    init(
        backend: any GatewayBackend, idleLimit: Double, sourceFetcher: (@Sendable () -> any PlaySourceFetcher)?,
        logger: Logger
    ) {
        self.backend = backend
        self.sourceFetcher = sourceFetcher
        self.logger = logger
        state = Mutex(State(sessions: PlaybackSessions(idleLimit: idleLimit)))
    }

    /// Records a request and, for the first media of a session, authorises and counts the play
    /// (`playOn`). Throws `license` (403) when the title may not be played.
    func admit(_ principal: Principal, token: String, kind: PlaybackSessions.Kind, now: Double) async throws {
        let device = principal.name
        let backend = self.backend
        let deviceName: String? = principal.isAdmin ? nil : device
        // Recorded and, for a new play, its authorisation started in one step: a second request of the session
        // finds the authorisation to wait for.
        let step: Step = state.withLock { state in
            switch state.sessions.record(device: device, token: token, kind: kind, now: now) {
            case .serve:
                return .serve
            case .countPlay(let session):
                // The session's id: the same play asked again (a failure, a takeover) is counted once.
                let playID = "\(runID)-p\(session)"
                let task = Task { try await backend.playOn(token: token, device: deviceName, playID: playID) }
                state.authorizations[session] = task
                if state.authorizations.count > 1024 { Self.forgetEnded(&state) }
                return .count(session, task)
            case .counted(let session):
                return .wait(state.authorizations[session])
            }
        }
        switch step {
        case .serve, .wait(nil):
            return
        case .count(let session, let task):
            do {
                let authorization = try await task.value
                guard authorization.playable else {
                    throw GatewayError(.forbidden, .license, authorization.reason ?? "not playable")
                }
                played(token: token, session: session, authorization)
                logger.info("play", metadata: ["token": "\(token)", "device": "\(device)"])
            } catch {
                state.withLock { state in
                    state.sessions.uncount(device: device, token: token, session: session)
                    state.authorizations[session] = nil
                }
                throw error
            }
        case .wait(let task?):
            let authorization = try await task.value
            guard authorization.playable else {
                throw GatewayError(.forbidden, .license, authorization.reason ?? "not playable")
            }
        }
    }

    /// What ``admit(_:token:kind:now:)`` does after recording: nothing, count a play (its authorisation
    /// started), or wait for the play's authorisation under way (nil: none kept).
    private enum Step {
        case serve
        case count(Int, Task<PlayAuthorization, any Error>)
        case wait(Task<PlayAuthorization, any Error>?)
    }

    /// What a request of a title's file needs of the play state, in one call:
    /// refuses a title whose license ended (403 `license`), records the request in the device's session —
    /// counting the play at its first media (``admit(_:token:kind:now:)``) — and gives the title's streaming
    /// source and its meter. A playlist not `onDisk` of a title with no streaming source yet counts as media:
    /// its plan comes with the play's authorisation.
    func open(
        _ principal: Principal, token: String, kind: PlaybackSessions.Kind, onDisk: Bool, directory: String,
        now: Double
    ) async throws -> (streaming: StreamingSource?, meter: PlayMeter) {
        let counted = try state.withLock { state in
            if let reason = state.refused[token] { throw GatewayError(.forbidden, .license, reason) }
            return kind == .playlist && state.streaming[token] == nil && !onDisk ? .media : kind
        }
        try await admit(principal, token: token, kind: counted, now: now)
        return state.withLock { state in
            let meter =
                state.meters[token]
                ?? PlayMeter(directory: URL(fileURLWithPath: directory), playlists: state.streaming[token]?.playlists)
            state.meters[token] = meter
            return (state.streaming[token], meter)
        }
    }

    /// A media request of a play already counted and authorised, recorded at once: the title's meter, or nil
    /// when the request must take ``open(_:token:kind:onDisk:directory:now:)`` (a session's first media, an
    /// authorisation under way, a title refused, streaming or not metered yet). Never waits.
    func admitCounted(_ principal: Principal, token: String, now: Double) -> PlayMeter? {
        state.withLock { state in
            guard state.refused[token] == nil, state.streaming[token] == nil, let meter = state.meters[token],
                state.sessions.isPlaying(device: principal.name, token: token, now: now),
                case .counted(let session) = state.sessions.record(
                    device: principal.name, token: token, kind: .media, now: now),
                state.authorized.contains(session)
            else { return nil }
            return meter
        }
    }

    /// A play was authorised: the title is no longer refused; a title still downloading streams the rest.
    private func played(token: String, session: Int, _ authorization: PlayAuthorization) {
        let stopped: StreamingSource? = state.withLock { state in
            state.refused[token] = nil
            state.authorized.insert(session)
            if let plan = authorization.streaming, let directory = authorization.directory {
                if state.streaming[token] == nil, let sourceFetcher {
                    state.streaming[token] = StreamingSource(
                        directory: URL(fileURLWithPath: directory), plan: plan, fetcher: sourceFetcher())
                    state.meters[token] = nil
                }
            } else if let source = state.streaming.removeValue(forKey: token) {
                state.meters[token] = nil
                return source
            }
            return nil
        }
        if let stopped { Task { await stopped.shutdown() } }
    }

    /// Keeps the authorisations of the sessions still remembered.
    private static func forgetEnded(_ state: inout State) {
        let live = state.sessions.sessionIDs
        state.authorizations = state.authorizations.filter { live.contains($0.key) }
        state.authorized = state.authorized.filter { live.contains($0) }
    }

    /// The streaming source of a title still downloading, if a play of it set one up.
    func streamingSource(_ token: String) -> StreamingSource? { state.withLock { $0.streaming[token] } }

    /// Reports the media seconds served per title (`played`, each report with an id, kept and sent again until a
    /// scheduler acknowledges it: ``PlayReports``), then refuses the titles whose license ended for plays under way
    /// (expired, play time used up; plays used up stop only new plays, at `playOn`).
    func report(now: Double) async {
        let meters = state.withLock { state in
            state.sessions.prune(now: now)
            if state.authorized.count > state.sessions.count { Self.forgetEnded(&state) }
            return state.meters
        }
        let drained = meters.map { ($0.key, $0.value.drain()) }.filter { $0.1 > 0 }
        let waiting = state.withLock { state in
            for (token, seconds) in drained {
                let report = PlayReports.Report(id: "\(runID)-r\(state.nextReport)", token: token, seconds: seconds)
                state.nextReport += 1
                if let dropped = state.reports.add(report) {
                    logger.error(
                        "play-time report dropped: too many waiting for a scheduler",
                        metadata: ["token": "\(dropped.token)", "seconds": "\(dropped.seconds)"])
                }
            }
            return state.reports.waiting
        }
        var reported: Set<String> = []
        for report in waiting {
            do {
                try await backend.played(token: report.token, seconds: report.seconds, reportID: report.id)
                reported.insert(report.token)
            } catch  where SchedulerOutage.isSilence(error) {
                logger.warning(
                    "play-time reports kept: no scheduler answers; sent again",
                    metadata: ["waiting": "\(waiting.count)", "error": "\(error)"])
                break
            } catch {
                logger.warning(
                    "play-time report refused", metadata: ["token": "\(report.token)", "error": "\(error)"])
            }
            state.withLock { $0.reports.settled(report.id) }
        }
        for token in reported {
            do {
                if let license = try await backend.license(token: token).license,
                    license.endsPlaysUnderWay(now: Date())
                {
                    state.withLock { $0.refused[token] = "the license no longer allows playing" }
                }
            } catch {
                logger.warning("license check failed", metadata: ["token": "\(token)", "error": "\(error)"])
            }
        }
    }

    /// The play-time reports waiting for a scheduler's acknowledgement (tests, the log).
    var reportsWaiting: [PlayReports.Report] { state.withLock { $0.reports.waiting } }

    /// Stops the plays under way of every title that can no longer be played, and lets plays of a title refused
    /// earlier start again once it can: asks the scheduler for the status of each title a session is playing or
    /// that is refused, all at once (`status`, not `playable`: that one looks at every file of the title, and a
    /// file gone is answered 404 anyway). Run twice a second (``PlayReporter``), so a title moved away (`stowctl
    /// export --move`), whose license expired or was revoked, or whose files or keys went, is refused within a
    /// second on both paths (the hot path admits only titles not refused, ``admitCounted(_:token:now:)``).
    /// A deleted title's sessions end (its files are gone; a new play is refused by `playOn`). Plays used up
    /// stop only new plays, and a title still downloading may be played while streaming: neither stops here.
    func stopUnplayable(now: Double) async {
        let tokens = state.withLock { $0.sessions.playing(now: now).union($0.refused.keys) }
        await withTaskGroup(of: Void.self) { group in
            for token in tokens { group.addTask { await self.check(token) } }
        }
    }

    /// One title of ``stopUnplayable(now:)``.
    private func check(_ token: String) async {
        let reason: String?
        do {
            let status = try await backend.status(token: token)
            if status.playableOffline {
                state.withLock { _ = $0.refused.removeValue(forKey: token) }
                return
            }
            if let code = status.notPlayableReason?.code, [.downloading, .licenseUsedUp].contains(code) { return }
            reason = status.notPlayableReason?.message ?? "the title can no longer be played"
        } catch let error as GatewayError where error.code == .notFound {
            reason = nil
        } catch {
            logger.warning("playable check failed", metadata: ["token": "\(token)", "error": "\(error)"])
            return
        }
        let first = state.withLock { state in
            state.sessions.end(token: token)
            defer { state.refused[token] = reason }
            return reason != nil && state.refused[token] == nil
        }
        if first { logger.info("plays stopped", metadata: ["token": "\(token)", "reason": "\(reason ?? "")"]) }
    }

    /// Closes the streaming sources' origin connections.
    func shutdown() async {
        let sources = state.withLock { state in
            defer { state.streaming = [:] }
            return Array(state.streaming.values)
        }
        for source in sources { await source.shutdown() }
    }
}
