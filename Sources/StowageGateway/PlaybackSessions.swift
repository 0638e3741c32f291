/// The rule that turns a device's requests for a title into plays, driven by a monotonic clock (seconds).
///
/// A session is keyed by (device, title token). Any request of the title opens one or continues it; a request
/// within `idleLimit` seconds of the session's previous request is the same play. Playlists alone count
/// nothing: the first key or media segment served in a session is one play. After `idleLimit` seconds idle
/// the next request opens a new session, which counts again. Devices count separately.
public struct PlaybackSessions: Sendable {
    /// What a request is, for counting.
    public enum Kind: Sendable, Equatable {
        /// A playlist or manifest: opens or continues a session, counts nothing.
        case playlist
        /// A media segment or content key: the first one in a session counts the play.
        case media
    }

    /// What to do with a request.
    public enum Decision: Sendable, Equatable {
        /// Nothing to count: a playlist.
        case serve(session: Int)
        /// The first media of session `session`: authorise and count one play before serving.
        case countPlay(session: Int)
        /// The play of session `session` was already counted (or is being counted).
        case counted(session: Int)
    }

    private struct Session {
        var id: Int
        var lastSeen: Double
        var counted: Bool
    }

    private struct Key: Hashable {
        var device: String
        var token: String
    }

    /// Seconds of silence after which a device's next request of a title is a new play.
    public let idleLimit: Double
    private var sessions: [Key: Session] = [:]
    private var nextID = 1

    /// Sessions that end after `idleLimit` seconds without a request.
    public init(idleLimit: Double = 30) { self.idleLimit = idleLimit }

    /// Records a request of `token` by `device` at monotonic time `now`, and says what to do with it.
    public mutating func record(device: String, token: String, kind: Kind, now: Double) -> Decision {
        let key = Key(device: device, token: token)
        var session: Session
        if let existing = sessions[key], now - existing.lastSeen <= idleLimit {
            session = existing
        } else {
            session = Session(id: nextID, lastSeen: now, counted: false)
            nextID += 1
        }
        session.lastSeen = max(session.lastSeen, now)
        defer { sessions[key] = session }
        switch kind {
        case .playlist:
            return .serve(session: session.id)
        case .media where session.counted:
            return .counted(session: session.id)
        case .media:
            session.counted = true
            return .countPlay(session: session.id)
        }
    }

    /// The play of `session` could not be counted (refused, or the scheduler failed): the next media request
    /// of that device and title asks again.
    public mutating func uncount(device: String, token: String, session: Int) {
        let key = Key(device: device, token: token)
        if sessions[key]?.id == session { sessions[key]?.counted = false }
    }

    /// Whether `device` has a session of `token` at `now` whose play was counted.
    public func isPlaying(device: String, token: String, now: Double) -> Bool {
        guard let session = sessions[Key(device: device, token: token)] else { return false }
        return session.counted && now - session.lastSeen <= idleLimit
    }

    /// The titles with a play under way at `now`: a session whose play was counted, not idle.
    public func playing(now: Double) -> Set<String> {
        Set(sessions.filter { $0.value.counted && now - $0.value.lastSeen <= idleLimit }.map(\.key.token))
    }

    /// Ends every session of `token` (the title can no longer be played): a later request opens a new session,
    /// whose play counts and is authorised again.
    public mutating func end(token: String) {
        sessions = sessions.filter { $0.key.token != token }
    }

    /// Forgets sessions idle for longer than `idleLimit` (memory only; the rule does not depend on it).
    public mutating func prune(now: Double) {
        sessions = sessions.filter { now - $0.value.lastSeen <= idleLimit }
    }

    /// The ids of the sessions remembered.
    public var sessionIDs: Set<Int> { Set(sessions.values.map(\.id)) }

    /// How many sessions are remembered.
    public var count: Int { sessions.count }
}
