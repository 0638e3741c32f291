import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import StowageProtocol
import Synchronization

/// Catalogues as they arrive from `--catalog`, handed from the fetcher's task to the scheduler's loop, which
/// alone checks and applies them (it holds the keys and writes the store).
public final class CatalogFeed: Sendable {
    /// What one fetch or read brought.
    public enum Arrival: Sendable, Equatable {
        /// A catalogue's exact bytes and its detached signature (nil: none beside it).
        case document(Data, signature: Data?)
        /// The URL answered 304 Not Modified.
        case notModified
        /// It could not be fetched or read.
        case failed(String)
    }

    private let arrivals = Mutex<[Arrival]>([])
    private let refused = Mutex(false)

    public init() {}

    /// The scheduler refused what arrived: the fetcher forgets its `ETag`, so a document republished with its
    /// signature after a poll caught one without the other is fetched whole again, not answered 304 forever.
    public func noteRefused() { refused.withLock { $0 = true } }

    /// Whether a refusal was noted since the last call (fetcher only).
    func takeRefused() -> Bool {
        refused.withLock { r in
            defer { r = false }
            return r
        }
    }

    public func post(_ arrival: Arrival) { arrivals.withLock { $0.append(arrival) } }

    /// What arrived since the last call (scheduler loop only).
    public func take() -> [Arrival] {
        arrivals.withLock { a in
            defer { a.removeAll() }
            return a
        }
    }
}

/// Fetches `--catalog` every `--catalog-interval`: a URL with `If-None-Match` (its signature from `URL.sig`), or a
/// file (`FILE.sig` beside it). It runs in the scheduler process beside the poll loop, not in a download worker:
/// the catalogue is a few kilobytes of control data checked with keys only the scheduler holds and applied to
/// the store only it writes, and no lease, retry or rate limit of title downloads applies to it.
public struct CatalogFetcher: Sendable {
    public let location: String
    public let interval: Double
    public let feed: CatalogFeed
    public let logger: Logger

    public init(location: String, interval: Double, feed: CatalogFeed, logger: Logger) {
        self.location = location
        self.interval = interval
        self.feed = feed
        self.logger = logger
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

    /// Fetches at once, then every `interval` seconds, until the task is canceled.
    public func run() async {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var etag: String?
        while !Task.isCancelled {
            let arrival = Self.isURL(location) ? await fetch(client, etag: &etag) : read()
            feed.post(arrival)
            try? await Task.sleep(for: .seconds(interval))
        }
        try? await client.shutdown()
    }

    private func read() -> CatalogFeed.Arrival {
        do {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: location))
            return .document(bytes, signature: try? Data(contentsOf: URL(fileURLWithPath: location + ".sig")))
        } catch {
            return .failed("cannot read \(location): \(error.localizedDescription)")
        }
    }

    private func fetch(_ client: HTTPClient, etag: inout String?) async -> CatalogFeed.Arrival {
        do {
            if feed.takeRefused() { etag = nil }
            var request = HTTPClientRequest(url: location)
            if let etag { request.headers.add(name: "If-None-Match", value: etag) }
            let response = try await client.execute(request, timeout: .seconds(30))
            if response.status == .notModified { return .notModified }
            guard response.status == .ok else {
                return .failed("GET \(URLRedaction.redacted(location)) answered \(response.status.code)")
            }
            let body = try await response.body.collect(upTo: 16 << 20)
            let signature = try await client.execute(
                HTTPClientRequest(url: Self.signatureURL(location)), timeout: .seconds(30))
            let sig: Data? =
                signature.status == .ok ? Data(try await signature.body.collect(upTo: 64 << 10).readableBytesView) : nil
            etag = response.headers.first(name: "ETag")
            return .document(Data(body.readableBytesView), signature: sig)
        } catch {
            return .failed("GET \(URLRedaction.redacted(location)) failed: \(error)")
        }
    }
}
