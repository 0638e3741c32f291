import StowageProtocol

/// What the operator's console asks of the scheduler beyond what the library needs (``GatewayBackend``): adding a
/// title, the box's figures, and the rules a look at a source keeps to. The real one is ``SchedulerBackend``; a
/// backend without it answers the console's routes 503 (the console names what is missing).
///
/// Each asks the scheduler an operator's question, so over tcp the gateway's key needs the `operator` role for
/// all but ``fetchScope(url:)`` (a `gateway` key gets `forbidden`, which the console shows as it is).
public protocol ConsoleBackend: Sendable {
    /// `submit`: the new title's token.
    func submit(_ request: SubmitRequest) async throws -> String
    /// `stats`, with the disk and the quota.
    func stats() async throws -> SchedulerStats
    /// `list --evictable`: first victim first.
    func evictable() async throws -> [TitleStatus]
    /// `catalog status`.
    func catalogStatus() async throws -> CatalogReport
    /// `notify status`.
    func notifyStatus() async throws -> NotifyReport
    /// `workers`.
    func workers() async throws -> [WorkerInfo]
    /// The box's allow-lists for a fetch of `url` (refused when `url` may not be a title's source).
    func fetchScope(url: String) async throws -> FetchScope
}
