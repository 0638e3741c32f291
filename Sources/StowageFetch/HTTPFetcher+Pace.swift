import Foundation
import StowageProtocol

extension HTTPFetcher {
    /// `operation` under `limits` (``BodyWatch``): an answer from `url` that comes too slowly, or takes too long,
    /// is cut and fails as `network` (retryable, its URL, host and the limit named), so the worker's slot it held
    /// is free again and the scheduler retries it with backoff.
    func paced<T: Sendable>(
        _ limits: BodyLimits, url: String,
        _ operation: @escaping @Sendable (BodyWatch) async throws(TaskFailure) -> T
    ) async throws(TaskFailure) -> T {
        do {
            return try await BodyWatch.run(limits, host: URLHost.of(url) ?? url) { watch in
                try await operation(watch)
            }
        } catch let failure as TaskFailure {
            throw failure
        } catch let slow as SlowAnswer {
            logger.warning("answer cut for its pace", metadata: ["url": "\(URLRedaction.redacted(url))"])
            var failure = TaskFailure(
                code: .network, message: "\(URLRedaction.redacted(url).prefix(300)): \(slow.message)", retryable: true)
            failure.slowAnswer = true
            throw failure
        } catch {
            throw Self.networkFailure(error, url: url)
        }
    }
}
