import Foundation

/// One operation a client asks of the scheduler and the type of its answer, so a caller gets that type back
/// (`client.request(.status(token: t))` is a ``TitleStatus``) instead of taking a ``ReplyBody`` apart itself.
///
/// The wire is unchanged: ``operation`` is sent as it always was, and the answer is taken from the
/// ``ReplyBody`` by ``reply(from:)``.
public protocol SchedulerRequest: Sendable {
    /// What a successful answer carries.
    associatedtype Reply: Sendable
    /// The operation as it goes on the wire.
    var operation: ClientOperation { get }
    /// The answer in `body`, or nil when `body` is another kind of reply.
    func reply(from body: ReplyBody) -> Reply?
}

/// Why a reply gave no answer: the scheduler refused the request (its error, with its code), or answered
/// with another kind of reply than the operation has (a scheduler of another version).
public enum ReplyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The scheduler's own error (`not-found`, `refused`, `license` …).
    case refused(TitleError)
    /// A reply of another kind than the operation's.
    case unexpected(ReplyBody)

    /// `error [code]: message` (as `stowctl` has always shown the scheduler's errors), or `unexpected reply`.
    public var description: String {
        switch self {
        case .refused(let error): "error [\(error.code.rawValue)]: \(error.message)"
        case .unexpected: "unexpected reply from the scheduler (is it another version of Stowage?)"
        }
    }
}

extension ReplyError: CodedError {
    public var code: ErrorCode {
        switch self {
        case .refused(let error): error.code
        case .unexpected: .internal
        }
    }

    public var message: String {
        switch self {
        case .refused(let error): error.message
        case .unexpected: description
        }
    }
}

extension SchedulerRequest {
    /// The answer in `body`; the scheduler's error, or a reply of another kind, is thrown.
    public func decode(_ body: ReplyBody) throws(ReplyError) -> Reply {
        if case .error(let error) = body { throw .refused(error) }
        guard let reply = reply(from: body) else { throw .unexpected(body) }
        return reply
    }
}

/// A ``SchedulerRequest`` made of an operation and the kind of reply it answers with. Make one with the static
/// functions below, one for each operation (`.status(token:)`, `.list(state:)`, `.key(token:index:)` …).
public struct SchedulerCall<Reply: Sendable>: SchedulerRequest {
    public let operation: ClientOperation
    private let payload: @Sendable (ReplyBody) -> Reply?

    init(_ operation: ClientOperation, _ payload: @escaping @Sendable (ReplyBody) -> Reply?) {
        self.operation = operation
        self.payload = payload
    }

    public func reply(from body: ReplyBody) -> Reply? { payload(body) }
}

/// What each kind of reply carries: the one place a ``ReplyBody`` is taken apart.
enum ReplyPayload {
    static func title(_ body: ReplyBody) -> TitleStatus? { if case .title(let v) = body { v } else { nil } }
    static func titles(_ body: ReplyBody) -> [TitleStatus]? { if case .titles(let v) = body { v } else { nil } }
    static func submitted(_ body: ReplyBody) -> String? { if case .submitted(let v) = body { v } else { nil } }
    static func stats(_ body: ReplyBody) -> SchedulerStats? { if case .stats(let v) = body { v } else { nil } }
    static func workers(_ body: ReplyBody) -> [WorkerInfo]? { if case .workers(let v) = body { v } else { nil } }
    static func play(_ body: ReplyBody) -> PlayAuthorization? { if case .play(let v) = body { v } else { nil } }
    static func license(_ body: ReplyBody) -> LicenseReport? { if case .license(let v) = body { v } else { nil } }
    static func removed(_ body: ReplyBody) -> [String]? { if case .removed(let v) = body { v } else { nil } }
    static func bookmarks(_ body: ReplyBody) -> [Bookmark]? { if case .bookmarks(let v) = body { v } else { nil } }
    static func limits(_ body: ReplyBody) -> LimitSettings? { if case .limits(let v) = body { v } else { nil } }
    /// A content key: base64 on the wire, its bytes here.
    static func key(_ body: ReplyBody) -> [UInt8]? {
        if case .key(let text) = body { Data(base64Encoded: text).map { Array($0) } } else { nil }
    }
    static func deviceSecret(_ body: ReplyBody) -> DeviceSecret? {
        if case .deviceSecret(let v) = body { v } else { nil }
    }
    static func devices(_ body: ReplyBody) -> [DeviceInfo]? { if case .devices(let v) = body { v } else { nil } }
    static func signedPath(_ body: ReplyBody) -> String? { if case .signedPath(let v) = body { v } else { nil } }
    static func devicePairing(_ body: ReplyBody) -> DevicePairing? {
        if case .devicePairing(let v) = body { v } else { nil }
    }
    static func pairingGrant(_ body: ReplyBody) -> PairingGrant? {
        if case .pairingGrant(let v) = body { v } else { nil }
    }
    static func boxKey(_ body: ReplyBody) -> String? { if case .boxKey(let v) = body { v } else { nil } }
    static func bundleJob(_ body: ReplyBody) -> BundleJob? { if case .bundleJob(let v) = body { v } else { nil } }
    static func principal(_ body: ReplyBody) -> DevicePrincipal? {
        if case .principal(let v) = body { v } else { nil }
    }
    static func catalog(_ body: ReplyBody) -> CatalogReport? { if case .catalog(let v) = body { v } else { nil } }
    static func notify(_ body: ReplyBody) -> NotifyReport? { if case .notify(let v) = body { v } else { nil } }
    static func fetchScope(_ body: ReplyBody) -> FetchScope? { if case .fetchScope(let v) = body { v } else { nil } }
    static func ok(_ body: ReplyBody) -> Void? { if case .ok = body { () } else { nil } }
    static func peerManifest(_ body: ReplyBody) -> PeerManifest? {
        if case .peerManifest(let v) = body { v } else { nil }
    }
}

// MARK: the operations and their replies

extension SchedulerRequest where Self == SchedulerCall<TitleStatus> {
    public static func status(token: String) -> Self { Self(.status(token: token), ReplyPayload.title) }
    public static func cancel(token: String) -> Self { Self(.cancel(token: token), ReplyPayload.title) }
    public static func pause(token: String) -> Self { Self(.pause(token: token), ReplyPayload.title) }
    public static func resume(token: String) -> Self { Self(.resume(token: token), ReplyPayload.title) }
    public static func stop(token: String) -> Self { Self(.stop(token: token), ReplyPayload.title) }
    public static func renew(token: String, terms: RequestedTerms?, licenseURL: String?) -> Self {
        Self(.renew(token: token, terms: terms, licenseURL: licenseURL), ReplyPayload.title)
    }
    public static func verify(token: String, repair: Bool) -> Self {
        Self(.verify(token: token, repair: repair), ReplyPayload.title)
    }
    public static func lookup(id: String?, url: String?) -> Self { Self(.lookup(id: id, url: url), ReplyPayload.title) }
    /// `pin` / `unpin`: answers the title as it is now.
    public static func pin(token: String, pinned: Bool) -> Self {
        Self(.pin(token: token, pinned: pinned), ReplyPayload.title)
    }
}

extension SchedulerRequest where Self == SchedulerCall<[TitleStatus]> {
    public static func list(state: TitleState?, after: String? = nil, limit: Int? = nil) -> Self {
        Self(.list(state: state, after: after, limit: limit), ReplyPayload.titles)
    }
    /// `list --evictable`: the titles the quota would evict, first victim first.
    public static var evictable: Self { Self(.evictable, ReplyPayload.titles) }
}

extension SchedulerRequest where Self == SchedulerCall<String> {
    /// Answers the new title's token.
    public static func submit(_ request: SubmitRequest) -> Self { Self(.submit(request), ReplyPayload.submitted) }
    /// Answers the signed path (`/titles/…?dev=…&exp=…&sig=…`).
    /// Answers this box's public key file text (`stowctl box key`).
    public static var boxKey: Self { Self(.boxKey, ReplyPayload.boxKey) }
    public static func deviceSign(name: String, path: String, expiresInSeconds: Double) -> Self {
        Self(.deviceSign(name: name, path: path, expiresInSeconds: expiresInSeconds), ReplyPayload.signedPath)
    }
}

extension SchedulerRequest where Self == SchedulerCall<[String]> {
    /// Answers the paths removed.
    public static var gc: Self { Self(.gc, ReplyPayload.removed) }
}

extension SchedulerRequest where Self == SchedulerCall<Void> {
    public static func delete(token: String) -> Self { Self(.delete(token: token), ReplyPayload.ok) }
    public static func played(token: String, seconds: Double, reportID: String? = nil) -> Self {
        Self(.played(token: token, seconds: seconds, reportID: reportID), ReplyPayload.ok)
    }
    public static func deviceRevoke(name: String) -> Self { Self(.deviceRevoke(name: name), ReplyPayload.ok) }
    public static func subscribe(tokens: [String]) -> Self { Self(.subscribe(tokens: tokens), ReplyPayload.ok) }
    public static var unsubscribe: Self { Self(.unsubscribe, ReplyPayload.ok) }
}

extension SchedulerRequest where Self == SchedulerCall<PlayAuthorization> {
    public static func playable(token: String) -> Self { Self(.playable(token: token), ReplyPayload.play) }
    public static func play(token: String, playID: String? = nil) -> Self {
        Self(.play(token: token, playID: playID), ReplyPayload.play)
    }
    public static func playOn(token: String, device: String, playID: String? = nil) -> Self {
        Self(.playOn(token: token, device: device, playID: playID), ReplyPayload.play)
    }
}

extension SchedulerRequest where Self == SchedulerCall<[UInt8]> {
    /// Answers the content key's bytes.
    public static func key(token: String, index: Int) -> Self {
        Self(.key(token: token, index: index), ReplyPayload.key)
    }
}

extension SchedulerRequest where Self == SchedulerCall<FetchScope> {
    /// The rules a fetch of `url` for the operator keeps to (the box's allow-lists).
    public static func fetchScope(url: String) -> Self { Self(.fetchScope(url: url), ReplyPayload.fetchScope) }
}

extension SchedulerRequest where Self == SchedulerCall<SchedulerStats> {
    public static var stats: Self { Self(.stats, ReplyPayload.stats) }
}

extension SchedulerRequest where Self == SchedulerCall<[WorkerInfo]> {
    public static var workers: Self { Self(.workers, ReplyPayload.workers) }
}

extension SchedulerRequest where Self == SchedulerCall<LicenseReport> {
    public static func license(token: String) -> Self { Self(.license(token: token), ReplyPayload.license) }
}

extension SchedulerRequest where Self == SchedulerCall<LimitSettings> {
    /// Reads (nil) or changes the limits; answers those in force.
    public static func limits(_ change: LimitSettings?) -> Self { Self(.limits(change), ReplyPayload.limits) }
}

extension SchedulerRequest where Self == SchedulerCall<[Bookmark]> {
    public static func bookmarkAdd(token: String, position: Double, label: String) -> Self {
        Self(.bookmarkAdd(token: token, position: position, label: label), ReplyPayload.bookmarks)
    }
    public static func bookmarkRemove(token: String, position: Double) -> Self {
        Self(.bookmarkRemove(token: token, position: position), ReplyPayload.bookmarks)
    }
    public static func bookmarks(token: String) -> Self { Self(.bookmarks(token: token), ReplyPayload.bookmarks) }
}

extension SchedulerRequest where Self == SchedulerCall<DeviceSecret> {
    public static func deviceAdd(name: String, peer: Bool = false) -> Self {
        Self(.deviceAdd(name: name, peer: peer ? true : nil), ReplyPayload.deviceSecret)
    }
}

extension SchedulerRequest where Self == SchedulerCall<DevicePairing> {
    /// Adds a device with a one-time pairing code (`devices add NAME --pair`).
    public static func devicePair(name: String) -> Self { Self(.devicePair(name: name), ReplyPayload.devicePairing) }
}

extension SchedulerRequest where Self == SchedulerCall<PairingGrant> {
    /// Redeems a pairing code (the gateway's `/pair/<code>`).
    public static func pairRedeem(code: String) -> Self { Self(.pairRedeem(code: code), ReplyPayload.pairingGrant) }
}

extension SchedulerRequest where Self == SchedulerCall<[DeviceInfo]> {
    public static var devices: Self { Self(.devices, ReplyPayload.devices) }
}

extension SchedulerRequest where Self == SchedulerCall<BundleJob> {
    /// Starts an export; answers the job, running.
    public static func exportTitle(_ request: BundleExportRequest) -> Self {
        Self(.exportTitle(request), ReplyPayload.bundleJob)
    }
    /// Starts an import; answers the job, running.
    public static func importBundle(_ request: BundleImportRequest) -> Self {
        Self(.importBundle(request), ReplyPayload.bundleJob)
    }
    public static func bundleJob(id: String) -> Self { Self(.bundleJob(id: id), ReplyPayload.bundleJob) }
}

extension SchedulerRequest where Self == SchedulerCall<DevicePrincipal> {
    public static func authenticate(_ credential: DeviceCredential) -> Self {
        Self(.authenticate(credential), ReplyPayload.principal)
    }
}

extension SchedulerRequest where Self == SchedulerCall<CatalogReport> {
    /// Applies a catalogue's exact bytes (and its detached signature); answers the report after it.
    public static func catalogApply(document: [UInt8], signature: [UInt8]?) -> Self {
        Self(
            .catalogApply(
                document: Data(document).base64EncodedString(),
                signature: signature.map { Data($0).base64EncodedString() }),
            ReplyPayload.catalog)
    }
    public static var catalogStatus: Self { Self(.catalogStatus, ReplyPayload.catalog) }
}

extension SchedulerRequest where Self == SchedulerCall<NotifyReport> {
    /// The `--notify` receivers and what waits for each.
    public static var notifyStatus: Self { Self(.notifyStatus, ReplyPayload.notify) }
}

extension SchedulerRequest where Self == SchedulerCall<PeerManifest> {
    /// A title's manifest for a peer box (the gateway's `/titles/<id>/manifest.json`).
    public static func peerManifest(token: String) -> Self {
        Self(.peerManifest(token: token), ReplyPayload.peerManifest)
    }
}
