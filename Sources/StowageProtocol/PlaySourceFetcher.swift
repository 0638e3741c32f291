import Foundation

/// Fetches one file of a title from its source, for a play of a title still downloading
/// (``StreamingPlan``): the bytes are kept in memory only.
///
/// A protocol, not the HTTP client itself, so that the playback servers (`stowctl play`, the gateway) do not
/// link an HTTP client library: the process that wires them passes `StowageFetch`'s `HTTPFetcher`, and tests
/// may pass a fake.
public protocol PlaySourceFetcher: Sendable {
    /// The bytes of `source` (its byte range, when it has one), sent with `headers` as `scope` allows, and
    /// fetched only from the hosts and addresses `scope` allows.
    func fetch(_ source: PlaySource, headers: [Header], scope: FetchScope) async throws(TaskFailure) -> Data
    /// Closes the connections it keeps open.
    func shutdown() async
}
