import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import StowageCatalog
import StowageProtocol

/// Fetches `--catalog` every `--catalog-interval`: a URL with `If-None-Match` (its signature from `URL.sig`), or a
/// file (`FILE.sig` beside it). It runs in the scheduler process beside the poll loop, not in a download worker:
/// the catalogue is a few kilobytes of control data checked with keys only the scheduler holds and applied to
/// the store only it writes, and no lease, retry or rate limit of title downloads applies to it. Each answer is
/// read under `limits` (``BodyWatch``: a URL that drips its body is cut, not waited on for minutes) and at most
/// ``CatalogLimits/maxBytes``.
///
/// A `Service` of the scheduler's group (``SchedulerService/Runner/companions``): started, stopped and awaited with
/// the loop; graceful shutdown ends its wait between two fetches at once.
public struct CatalogFetcher: Service, CustomStringConvertible {
    public let location: String
    public let interval: Double
    public let feed: CatalogFeed
    public let logger: Logger
    public let limits: BodyLimits

    public init(location: String, interval: Double, feed: CatalogFeed, logger: Logger, limits: BodyLimits) {
        self.location = location
        self.interval = interval
        self.feed = feed
        self.logger = logger
        self.limits = limits
    }

    /// The detached signature's URL: `.sig` appended to the path, the query kept (`c.json?t=x` → `c.json.sig?t=x`).
    public static func signatureURL(_ location: String) -> String {
        guard var parts = URLComponents(string: location) else { return location + ".sig" }
        parts.percentEncodedPath += ".sig"
        return parts.string ?? location + ".sig"
    }

    /// Whether `location` is fetched over HTTP (otherwise it is a file).
    public static func isURL(_ location: String) -> Bool {
        let lower = location.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// The service's name in the group's logs.
    public var description: String { "catalog-fetcher" }

    /// Fetches at once, then every `interval` seconds, until graceful shutdown or cancellation.
    public func run() async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let fetcher = self
        await cancelWhenGracefulShutdown { await fetcher.poll(client) }
        try? await client.shutdown()
    }

    /// The fetches, one an interval, until the task is canceled.
    private func poll(_ client: HTTPClient) async {
        var etag: String?
        while !Task.isCancelled {
            // Taken at every fetch, a file's too (it has no ETag): what was refused waits in the mailbox no longer.
            if !feed.refusals.take().isEmpty { etag = nil }
            let arrival = Self.isURL(location) ? await fetch(client, etag: &etag) : read()
            feed.arrivals.post(arrival)
            try? await Task.sleep(for: .seconds(interval))
        }
    }

    private func read() -> CatalogFeed.Arrival {
        do {
            let size = try FileManager.default.attributesOfItem(atPath: location)[.size] as? Int ?? 0
            guard size <= CatalogLimits.maxBytes else { return .refused(Self.tooLarge(size)) }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: location))
            return .document(bytes, signature: try? Data(contentsOf: URL(fileURLWithPath: location + ".sig")))
        } catch {
            return .failed("cannot read \(location): \(error.localizedDescription)")
        }
    }

    static func tooLarge(_ size: Int?) -> CatalogRefusal {
        CatalogRefusal(
            .tooLarge,
            "the catalogue is \(size.map { "\($0) bytes" } ?? "larger than that"); at most \(CatalogLimits.maxBytes) "
                + "are accepted")
    }

    private func fetch(_ client: HTTPClient, etag: inout String?) async -> CatalogFeed.Arrival {
        let shown = URLRedaction.redacted(location)
        let host = URLHost.of(location) ?? shown
        do {
            var request = HTTPClientRequest(url: location)
            if let etag { request.headers.add(name: "If-None-Match", value: etag) }
            let (limits, sent) = (limits, request)
            let answer = try await BodyWatch.run(limits, host: host) { watch in
                try await Self.get(sent, client: client, watch: watch, limit: CatalogLimits.maxBytes)
            }
            if answer.status == 304 { return .notModified }
            guard answer.status == 200 else { return .failed("GET \(shown) answered \(answer.status)") }
            guard let body = answer.body else { return .refused(Self.tooLarge(answer.length)) }
            let signature = try await BodyWatch.run(limits, host: host) { watch in
                try await Self.get(
                    HTTPClientRequest(url: Self.signatureURL(location)), client: client, watch: watch,
                    limit: CatalogLimits.maxSignatureBytes)
            }
            etag = answer.etag
            return .document(body, signature: signature.status == 200 ? signature.body : nil)
        } catch let slow as SlowAnswer {
            return .failed("GET \(shown): \(slow.message)")
        } catch {
            return .failed("GET \(shown) failed: \(error)")
        }
    }

    /// One GET's status, `ETag` and body (nil: longer than `limit`, its length if it said), each piece counted.
    private struct Answer: Sendable {
        var status: UInt
        var etag: String?
        var body: Data?
        var length: Int?
    }

    private static func get(_ request: HTTPClientRequest, client: HTTPClient, watch: BodyWatch, limit: Int)
        async throws -> Answer
    {
        let response = try await client.execute(request, timeout: .seconds(30))
        let length = response.headers.first(name: "Content-Length").flatMap { Int($0) }
        var answer = Answer(status: response.status.code, etag: response.headers.first(name: "ETag"), length: length)
        guard answer.status == 200 else { return answer }
        if let length, length > limit { return answer }
        var body = Data()
        for try await buffer in response.body {
            watch.count(buffer.readableBytes)
            guard body.count + buffer.readableBytes <= limit else { return answer }
            body.append(contentsOf: buffer.readableBytesView)
        }
        answer.body = body
        return answer
    }
}
