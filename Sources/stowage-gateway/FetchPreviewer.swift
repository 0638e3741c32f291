import Logging
import StowageFetch
import StowageGateway
import StowageProtocol

/// The console's look at a source: `stowctl variants` and `stowctl estimate` (``TitleProbe``) through an HTTP
/// client of its own for each look, under the scope the scheduler gave (its allow-lists). A failure keeps its code
/// (`network`, `playlist`, `refused` …), so the form shows the same reason `stowctl` would print.
struct FetchPreviewer: TitlePreviewer {
    let logger: Logger

    func preview(_ work: ResolveWork, scope: FetchScope) async throws -> TitlePreview {
        let fetcher = HTTPFetcher(logger: logger, connectionsPerHost: 2)
        do {
            let preview = try await HTTPFetcher.$scope.withValue(scope) {
                TitlePreview(
                    variants: try await TitleProbe.variants(work.url, headers: work.headers, fetcher: fetcher),
                    estimate: try await TitleProbe.estimate(work, exact: false, fetcher: fetcher))
            }
            await fetcher.shutdown()
            return preview
        } catch {
            await fetcher.shutdown()
            if let coded = error as? any CodedError {
                throw GatewayError(TitleError(code: coded.code, message: coded.message))
            }
            throw GatewayError(.badGateway, .network, "\(error)")
        }
    }
}
