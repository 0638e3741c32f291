import Foundation
import Logging
import StowagePlayback
import StowageProtocol

/// The gateway's playback state: the sessions (``PlaybackSessions``), each session's play authorisation,
/// the meters of media served, the streaming sources of titles still downloading, and the titles refused
/// because their license expired.
actor PlayState {
    private var sessions: PlaybackSessions
    private var authorizations: [Int: Task<PlayAuthorization, any Error>] = [:]
    private var meters: [String: PlayMeter] = [:]
    private var streaming: [String: StreamingSource] = [:]
    private var refused: [String: String] = [:]
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
        sessions = PlaybackSessions(idleLimit: idleLimit)
    }

    /// Records a request and, for the first media of a session, authorises and counts the play
    /// (`playOn`). Throws `license` (403) when the title may not be played.
    func admit(_ principal: Principal, token: String, kind: PlaybackSessions.Kind, now: Double) async throws {
        let device = principal.name
        switch sessions.record(device: device, token: token, kind: kind, now: now) {
        case .serve:
            return
        case .countPlay(let session):
            let backend = self.backend
            let deviceName: String? = principal.isAdmin ? nil : device
            let task = Task { try await backend.playOn(token: token, device: deviceName) }
            authorizations[session] = task
            if authorizations.count > 1024 {
                let live = sessions.sessionIDs
                authorizations = authorizations.filter { live.contains($0.key) }
            }
            do {
                let authorization = try await task.value
                guard authorization.playable else {
                    throw GatewayError(.forbidden, .license, authorization.reason ?? "not playable")
                }
                played(token: token, authorization)
                logger.info("play", metadata: ["token": "\(token)", "device": "\(device)"])
            } catch {
                sessions.uncount(device: device, token: token, session: session)
                authorizations[session] = nil
                throw error
            }
        case .counted(let session):
            guard let task = authorizations[session] else { return }
            let authorization = try await task.value
            guard authorization.playable else {
                throw GatewayError(.forbidden, .license, authorization.reason ?? "not playable")
            }
        }
    }

    /// What a request of a title's file needs of the play state, in one call (one hop to this actor a request):
    /// refuses a title whose license ended (403 `license`), records the request in the device's session —
    /// counting the play at its first media (``admit(_:token:kind:now:)``) — and gives the title's streaming
    /// source and its meter (media served is metered there, off this actor). A playlist not `onDisk` of a title
    /// with no streaming source yet counts as media: its plan comes with the play's authorisation.
    func open(
        _ principal: Principal, token: String, kind: PlaybackSessions.Kind, onDisk: Bool, directory: String,
        now: Double
    ) async throws -> (streaming: StreamingSource?, meter: PlayMeter) {
        if let reason = refused[token] { throw GatewayError(.forbidden, .license, reason) }
        let counted = kind == .playlist && streaming[token] == nil && !onDisk ? .media : kind
        try await admit(principal, token: token, kind: counted, now: now)
        let meter =
            meters[token]
            ?? PlayMeter(directory: URL(fileURLWithPath: directory), playlists: streaming[token]?.playlists)
        meters[token] = meter
        return (streaming[token], meter)
    }

    /// A play was authorised: the title is no longer refused; a title still downloading streams the rest.
    private func played(token: String, _ authorization: PlayAuthorization) {
        refused[token] = nil
        if let plan = authorization.streaming, let directory = authorization.directory {
            if streaming[token] == nil, let sourceFetcher {
                streaming[token] = StreamingSource(
                    directory: URL(fileURLWithPath: directory), plan: plan, fetcher: sourceFetcher())
                meters[token] = nil
            }
        } else if let source = streaming.removeValue(forKey: token) {
            meters[token] = nil
            Task { await source.shutdown() }
        }
    }

    /// Whether `device` plays `token` now (its session's play was counted and is playable).
    func isPlaying(_ principal: Principal, token: String, now: Double) -> Bool {
        sessions.isPlaying(device: principal.name, token: token, now: now)
    }

    /// The streaming source of a title still downloading, if a play of it set one up.
    func streamingSource(_ token: String) -> StreamingSource? { streaming[token] }

    /// Why a title's files are refused (its license expired), or nil.
    func refusal(_ token: String) -> String? { refused[token] }

    /// Reports the media seconds served per title (`played`), then refuses the titles whose license ended for plays
    /// under way (expired, play time used up; plays used up stop only new plays, at `playOn`).
    func report(now: Double) async {
        sessions.prune(now: now)
        for (token, meter) in meters {
            let seconds = meter.drain()
            guard seconds > 0 else { continue }
            do {
                try await backend.played(token: token, seconds: seconds)
                if let license = try await backend.license(token: token).license,
                    license.endsPlaysUnderWay(now: Date())
                {
                    refused[token] = "the license no longer allows playing"
                }
            } catch {
                logger.warning("play-time report failed", metadata: ["token": "\(token)", "error": "\(error)"])
            }
        }
    }

    /// Closes the streaming sources' origin connections.
    func shutdown() async {
        for source in streaming.values { await source.shutdown() }
        streaming = [:]
    }
}
