import Foundation
import StowageProtocol

extension HTTPFetcher: PlaySourceFetcher {
    /// Fetches `source` for a play of a title still downloading, within the title's own limits (``scope``):
    /// the same hosts, addresses and header hosts as its downloads.
    public func fetch(_ source: PlaySource, headers: [Header], scope: FetchScope) async throws(TaskFailure) -> Data {
        let result: Result<Data, TaskFailure> = await Self.$scope.withValue(scope) {
            do throws(TaskFailure) {
                return .success(
                    try await fetchData(
                        source.url, headers: headers, offset: source.rangeOffset, length: source.rangeLength))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
