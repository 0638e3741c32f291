import StowageProtocol

/// One title as the operator's console shows it (`GET /api/console/titles`, and each row of `/console`): what tells
/// two copies of one URL apart (token, id, name, source, when asked for, selection size), its state with the
/// reason in the scheduler's words, its bytes, its license, and the actions its state accepts.
struct ConsoleTitle: Encodable, Sendable, Equatable {
    var token: String
    var id: String?
    var name: String?
    /// The source URL without its query (``URLRedaction``, as `stowctl` shows it): a signed URL's credentials
    /// stay off the page.
    var source: String
    var state: TitleState
    /// `suspended (paused)`, `requested (queue 2)` …
    var stateText: String
    /// Why it fails, waits or cannot be played: the operator's text (an error's code and message).
    var reason: String?
    var progress: Double
    var bytesDownloaded: Int64
    var bytesExpected: Int64?
    var segmentsDone: Int
    var segmentsTotal: Int
    var requestedAt: String?
    var license: String
    var playableOffline: Bool
    var pinned: Bool
    var actions: [String]

    init(_ s: TitleStatus) {
        token = s.token
        id = s.id
        name = s.name
        source = URLRedaction.redacted(s.url)
        state = s.state
        stateText = Self.stateText(s)
        reason = Self.reason(s)
        progress = s.progress.isFinite ? min(max(s.progress, 0), 1) : 0
        bytesDownloaded = s.bytesDownloaded
        bytesExpected = s.bytesExpected
        segmentsDone = s.segmentsDone
        segmentsTotal = s.segmentsTotal
        requestedAt = s.requestedAt
        license = Self.licenseText(s.license)
        playableOffline = s.playableOffline
        pinned = s.pinned ?? false
        actions = ConsoleActions.offered(s).map(\.rawValue)
    }

    static func stateText(_ s: TitleStatus) -> String {
        if s.state == .suspended, let reason = s.suspendedReason { return "suspended (\(reason.rawValue))" }
        if s.state == .requested, let place = s.queuePosition { return "requested (queue \(place))" }
        return s.state.rawValue
    }

    /// The scheduler's own words: the error (code and message), what a wait waits for, why it cannot be played.
    static func reason(_ s: TitleStatus) -> String? {
        var parts: [String] = []
        if let error = s.error { parts.append("\(error.code.rawValue): \(error.message)") }
        if s.state == .suspended {
            if let host = s.waitingFor { parts.append("waiting for \(host)") }
            if let next = s.nextProbeAt { parts.append("next try \(BoxTime.words(next))") }
            if let window = s.nextWindowAt { parts.append("window opens \(BoxTime.words(window))") }
        }
        if s.state == .completed, !s.playableOffline, let why = s.notPlayableReason {
            parts.append("not playable: \(why.message)")
        }
        if let stalled = s.stalledSince {
            parts.append("the live playlist stopped updating at \(BoxTime.words(stalled))")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    static func licenseText(_ license: LicenseStatus?) -> String {
        guard let license else { return "not licensed yet" }
        if license.kind == .none { return "no restrictions" }
        var parts = [license.kind.rawValue]
        if let expires = license.expiresAt { parts.append("until \(BoxTime.words(expires))") }
        if let plays = license.playsRemaining { parts.append("\(plays) plays left") }
        if let time = license.playTimeRemainingSeconds {
            parts.append("\(Int(min(max(time, 0), 1e12))) s of play left")
        }
        if license.expired { parts.append("expired") }
        return parts.joined(separator: ", ")
    }
}
