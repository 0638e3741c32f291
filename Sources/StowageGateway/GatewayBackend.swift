import StowageProtocol

/// The management actions of `POST /api/titles/<token>/<action>` (the console offers those the title's state
/// accepts, ``ConsoleActions``).
public enum TitleAction: String, Sendable, CaseIterable {
    case pause, resume, renew, delete, stop
}

/// What the gateway asks of the scheduler. The real one is ``SchedulerBackend`` (ZeroMQ); tests use a fake.
///
/// Every method throws ``GatewayError``: the scheduler's own errors keep their code (`not-found`,
/// `unauthorized`, `license` …); a scheduler that does not answer is an `internal` 503.
public protocol GatewayBackend: Sendable {
    /// Checks a device's credential (`ClientOperation.authenticate`).
    func authenticate(_ credential: DeviceCredential) async throws -> DevicePrincipal
    /// The title with this caller-chosen id or source URL (`lookup`).
    func lookup(id: String?, url: String?) async throws -> TitleStatus
    /// One title by token (`status`).
    func status(token: String) async throws -> TitleStatus
    /// Every title (`list(state: nil)`).
    func list() async throws -> [TitleStatus]
    /// Whether the title can be played offline now, and why not (`playable`).
    func playable(token: String) async throws -> PlayAuthorization
    /// Authorises and counts one play on `device` (`playOn`), or — for the admin, `device` nil — `play`. `playID`
    /// is the play's own id: asked again with it (a failure, a takeover), the play is counted once.
    func playOn(token: String, device: String?, playID: String) async throws -> PlayAuthorization
    /// Content key `index` of a title (`key`), only while it is playable.
    func key(token: String, index: Int) async throws -> [UInt8]
    /// Media seconds played (`played`); `reportID`: the report's own id, the same each time it is sent again (the
    /// scheduler applies it once).
    func played(token: String, seconds: Double, reportID: String) async throws
    /// License terms and state (`license`).
    func license(token: String) async throws -> LicenseReport
    /// Pause, resume, renew, delete or stop (a recording) a title.
    func manage(_ action: TitleAction, token: String) async throws
    /// A title's plan and verified files' hashes for a peer box (`peerManifest`).
    func peerManifest(token: String) async throws -> PeerManifest
    /// Redeems a pairing code (`pairRedeem`): the device and the credential its browser's session keeps.
    func redeemPairing(code: String) async throws -> PairingGrant
    /// Adds a device with a one-time pairing code (`devicePair`; the console's "Add a device").
    func pairDevice(name: String) async throws -> DevicePairing
    /// Every device (`devices`).
    func devices() async throws -> [DeviceInfo]
    /// Revokes a device (`deviceRevoke`).
    func revokeDevice(name: String) async throws
    /// The scheduler's title events, for as long as the caller iterates (a new stream per caller).
    func titleEvents() -> AsyncStream<TitleEvent>
}
