import StowageProtocol
import StowageStore

/// The narrow interface through which a component acts on titles; ``SchedulerService`` implements it. A
/// component reads titles from the store as it needs, but every change of a title's life goes through here, so the
/// lifecycle's table (``TitleLifecycle``) and the event sink stay the only ways a title moves.
protocol TitleDesk: AnyObject {
    /// A new title, as `stowctl submit` makes one (`reuse`: the unfinished or completed title of the same URL is
    /// answered instead). Returns its token.
    func submit(_ request: SubmitRequest, reuse: Bool) throws -> String
    /// The title waits, for `reason` (its work in flight called back; bytes on disk kept), and for `waitingHost`
    /// to answer when it waits for the network.
    func suspend(_ token: String, reason: SuspendedReason, waitingHost: String?, error: TitleError?) throws
    /// The title carries on from what is on disk (to the state the lifecycle computes from what it holds).
    func resume(_ token: String) throws
    /// Files and record removed.
    func delete(_ token: String) throws
    /// The title ends with `error`.
    func fail(_ token: String, _ error: TitleError) throws
    /// Records an event (see ``TitleHappening``).
    func record(_ event: TitleHappening) throws
    /// The title's status as `stowctl status` shows it (`not-found` when unknown).
    func status(_ token: String) throws -> TitleStatus
    /// A play of the title authorised and counted, as `stowctl play` (the gateway's devices play through here; the
    /// verdict says why a title cannot be played).
    func authorizePlay(_ token: String) throws -> PlayAuthorization
    /// Takes in a title whose files are already in its folder, every one verified (an import), in one transaction
    /// whose replies and events go out once it commits: `title` is inserted (its license counted from this box's
    /// clock epoch), `fill` stores what it holds (plan, files, keys, its events), the lifecycle completes it, then
    /// `last` runs (what may be written only once nothing else can fail). When a step throws, the title is deleted
    /// in the same transaction and the error rethrown.
    func adopt(_ title: TitleRecord, fill: () throws -> Void, last: () throws -> Void) throws
}

extension TitleDesk {
    /// The title waits, for `reason` (no host to wait for).
    func suspend(_ token: String, reason: SuspendedReason, error: TitleError?) throws {
        try suspend(token, reason: reason, waitingHost: nil, error: error)
    }
}
