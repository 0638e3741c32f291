import StowageLicensing
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// What the title pipeline's own stages (licensing, verification, recording) may do besides ``TitleDesk``: they
/// move a title by the lifecycle's pipeline events, put its work on the queue and take it off, and retry a task
/// within the budget. Side concerns (the catalogue, the quota, notifications …) get only the ``TitleDesk``.
protocol PipelineDesk: TitleDesk {
    /// Content keys are wrapped with the master key before they touch the store.
    var vault: KeyVault { get }
    /// Moves a title by a lifecycle event (``TitleLifecycle``, the only table of transitions).
    func handle(_ event: TitleLifecycle.Event, of token: String) throws
    /// Work for the queue: now, or at `at` (monotonic) for a retry.
    func enqueue(_ item: WorkItem, at: Double?)
    /// Work for the front of the queue (a re-resolution, what waited for it).
    func enqueueFirst(_ item: WorkItem)
    /// The resolve task of a title.
    func resolveItem(_ title: TitleRecord) -> WorkItem
    /// A failed attempt of a resolve, license or reload task: true when it is tried again (within the budget, with
    /// backoff); false when the budget is spent (its attempts then start over).
    func retryTask(_ item: WorkItem, after failure: TaskFailure) -> Bool
    /// Takes the title off the work queue without calling anything back (its last task just ended).
    func leaveQueue(_ token: String)
    /// Puts a title back on the work queue at `priority` (a verify run of a completed title goes before or after
    /// the downloads: its own priority shifted).
    func joinQueue(_ token: String, priority: Int, requestedAt: Double)
    /// Whether the title has work queued or out (a run ends when it has none).
    func hasWork(_ token: String) -> Bool
    /// The work item that fetches a file (from the title's peer or its origin, with the host it goes to).
    func fetchItem(_ r: ResourceRecord) -> WorkItem
    /// Tells the title's subscribers its progress (at most four times a second when `throttled`).
    func publishProgress(_ token: String, throttled: Bool)
    /// Why the title's license forbids fetching its files again now (a repair), nil when it allows it.
    func licenseRefusal(_ title: TitleRecord) -> String?
    /// Licensed: the download (or recording) starts when a slot frees.
    func startDownloading(_ token: String) throws
    /// When every file is verified: the offline playlists are written and the title completes.
    func checkComplete(_ token: String) throws
    /// The title waits for `endpoint` to answer (`network`), or fails with `message` when none is known.
    func suspendForNetwork(_ token: String, endpoint: String?, message: String) throws
    /// A license renewal could not reach `endpoint`: the title keeps its state; the renewal runs when it answers.
    func renewalWaitsForNetwork(_ token: String, endpoint: String) throws
    /// Queues a license task for a renewal, ahead of downloads (`priority`).
    func enqueueRenewal(_ token: String, priority: Int, requestedAt: Double)
}
