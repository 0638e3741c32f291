import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StowageProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP for the download worker: playlists into memory (bounded), resources streamed to disk.
public final class HTTPFetcher: Sendable {
    /// Largest playlist accepted.
    public static let maxPlaylistBytes = 32 * 1024 * 1024
    /// For URLs whose host is an address (checked before each request); names go through ``pinned``.
    package let client: HTTPClient
    /// Clients bound to the checked address of each host name.
    let pinned: PinnedClients
    package let logger: Logger
    /// This worker's share of the global bandwidth cap.
    public let rateLimiter = RateLimiter()
    /// Answers read over a batch's own connection (``OriginConnection``), not through the general client.
    package let connectionAnswers = Atomic<Int>(0)
    /// Requests written ahead on a batch's connection (HTTP/1.1 pipelining), for tests and figures.
    package let pipelinedRequests = Atomic<Int>(0)

    public init(logger: Logger, connectionsPerHost: Int = 8) {
        let config = Self.configuration(connectionsPerHost: connectionsPerHost)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
        pinned = PinnedClients(configuration: config)
        self.logger = logger
    }

    /// The general client's settings (also those of each ``PinnedClients`` client).
    static func configuration(connectionsPerHost: Int) -> HTTPClient.Configuration {
        // Redirects are followed by `perform`, which checks every hop.
        var config = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(30)))
        config.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        // A refused connection fails the request at once: the scheduler owns retries and backoff, and notices
        // an outage in seconds instead of one connect timeout per attempt.
        config.connectionPool.retryConnectionEstablishment = false
        // Idle connections close soon, as the scheduler's per-host connection count assumes.
        config.connectionPool.idleTimeout = .milliseconds(Int64(WireProtocol.connectionIdleMilliseconds))
        config.decompression = .disabled
        // No request spans: nothing here reads them, and making them (even for the no-op tracer) costs time on
        // every request.
        config.tracing.tracer = nil
        return config
    }

    public func shutdown() async {
        try? await client.shutdown()
        await pinned.shutdown()
    }

    /// Closes connections; call from a thread that is not an event loop (e.g. after the worker loop).
    public func syncShutdown() {
        try? client.syncShutdown()
        pinned.syncShutdown()
    }

    package func request(_ url: String, headers: [Header], range: ClosedRange<Int64>? = nil) throws(TaskFailure)
        -> HTTPClientRequest
    {
        try Self.checkURL(url)
        var request = HTTPClientRequest(url: url)
        for h in Self.scope.headers(headers, for: url) { request.headers.add(name: h.name, value: h.value) }
        request.headers.replaceOrAdd(name: "User-Agent", value: "Stowage/0.1")
        if let range {
            let end = range.upperBound == Int64.max ? "" : "\(range.upperBound)"
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(range.lowerBound)-\(end)")
        }
        return request
    }

    /// Maps an HTTP status to a failure: 5xx / 408 / 429 retryable; other 4xx final. 429 and 503 carry
    /// the host and `Retry-After` (seconds or an HTTP date) so the scheduler can slow that host down.
    package static func failure(status: HTTPResponseStatus, url: String, headers: HTTPHeaders = HTTPHeaders())
        -> TaskFailure
    {
        let code = Int(status.code)
        let retryable = code >= 500 || code == 408 || code == 429
        var failure = TaskFailure(
            code: .httpStatus, message: "\(url) answered HTTP \(code) \(status.reasonPhrase)", retryable: retryable)
        failure.status = code
        if code == 429 || code == 503 {
            failure.host = URL(string: url)?.host
            failure.retryAfter = headers.first(name: "Retry-After").flatMap(Self.retryAfterSeconds) ?? 1
        }
        return failure
    }

    /// `Retry-After: 120` or `Retry-After: Fri, 31 Dec 1999 23:59:59 GMT`, as seconds from now (capped at 10 min).
    static func retryAfterSeconds(_ value: String) -> Double? {
        if let s = Double(value.trimmingCharacters(in: .whitespaces)), s >= 0 { return min(s, 600) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = f.date(from: value) else { return nil }
        return min(max(0, date.timeIntervalSinceNow), 600)
    }

    /// A connectivity failure (refused, reset, timed out, no such host, no route), named in words a person can
    /// act on, with the `host:port` the scheduler probes before resuming titles that wait for it.
    package static func networkFailure(_ error: Error, url: String) -> TaskFailure {
        if error is CancellationError { return TaskFailure(code: .canceled, message: "canceled", retryable: false) }
        if (error as? HTTPClientError) == .cancelled {
            return TaskFailure(code: .canceled, message: "canceled", retryable: false)
        }
        let endpoint = NetworkErrorText.endpoint(of: url)
        var failure = TaskFailure(
            code: .network, message: "\(url): \(NetworkErrorText.describe(error, endpoint: endpoint))",
            retryable: true)
        failure.endpoint = endpoint
        return failure
    }

    /// The size of a resource from a HEAD request (Content-Length), for exact estimates.
    public func contentLength(_ url: String, headers: [Header]) async throws(TaskFailure) -> Int64 {
        var req = try request(url, headers: headers)
        req.method = .HEAD
        do {
            let (response, _) = try await perform(req, timeout: .seconds(30))
            guard (200..<300).contains(response.status.code) else {
                throw Self.failure(status: response.status, url: url)
            }
            guard let length = response.headers.first(name: "Content-Length").flatMap({ Int64($0) }) else {
                throw TaskFailure(code: .httpStatus, message: "\(url) sent no Content-Length", retryable: false)
            }
            return length
        } catch let f as TaskFailure {
            throw f
        } catch {
            throw Self.networkFailure(error, url: url)
        }
    }

    /// Fetches a whole resource (or its byte range) into memory, at most `limit` bytes: what `stowctl play`
    /// streams from the origin for a title still downloading. Nothing is written or counted.
    public func fetchData(
        _ url: String, headers: [Header], offset: Int64? = nil, length: Int64? = nil,
        limit: Int = 256 << 20
    ) async throws(TaskFailure) -> Data {
        if let length, length <= 0 { return Data() }
        let range = offset.map { o in o...(length.map { o.saturatingAdding($0 - 1) } ?? Int64.max) }
        let req = try request(url, headers: headers, range: range)
        do {
            let (response, _) = try await perform(req, timeout: .seconds(60))
            guard (200..<300).contains(response.status.code) else {
                throw Self.failure(status: response.status, url: url, headers: response.headers)
            }
            if range != nil && response.status.code != 206 {
                throw TaskFailure(
                    code: .httpStatus, message: "\(url) ignored the byte range (HTTP \(response.status.code))",
                    retryable: false)
            }
            let body = try await response.body.collect(upTo: limit)
            if let length, body.readableBytes != Int(length) {
                throw TaskFailure(
                    code: .network, message: "\(url) sent \(body.readableBytes) bytes, expected \(length)",
                    retryable: true)
            }
            return Data(body.readableBytesView)
        } catch let f as TaskFailure {
            throw f
        } catch {
            throw Self.networkFailure(error, url: url)
        }
    }

    /// Fetches a text resource (a playlist). Returns the text and the final URL after redirects.
    public func fetchText(_ url: String, headers: [Header]) async throws(TaskFailure) -> (
        text: String, finalURL: String
    ) {
        let (bytes, finalURL) = try await fetchBytes(url, headers: headers)
        return (String(decoding: bytes, as: UTF8.self), finalURL)
    }

    /// A playlist, manifest or index (at most ``maxPlaylistBytes``), whole or the byte `range` of it, and the
    /// URL it came from after redirects.
    public func fetchBytes(_ url: String, headers: [Header], range: ClosedRange<Int64>? = nil)
        async throws(TaskFailure) -> (bytes: [UInt8], finalURL: String)
    {
        let (bytes, finalURL, _) = try await fetchDated(url, headers: headers, range: range)
        return (bytes, finalURL)
    }

    /// ``fetchBytes(_:headers:range:)`` with the answer's `Date` header (a live MPD's clock when it names no
    /// `UTCTiming`).
    public func fetchDated(_ url: String, headers: [Header], range: ClosedRange<Int64>? = nil)
        async throws(TaskFailure) -> (bytes: [UInt8], finalURL: String, date: String?)
    {
        if let limits = Self.scope.limits(for: url) {
            return try await paced(limits, url: url) { watch throws(TaskFailure) in
                try await self.fetchBytes(url, headers: headers, range: range, watch: watch)
            }
        }
        return try await fetchBytes(url, headers: headers, range: range, watch: nil)
    }

    private func fetchBytes(_ url: String, headers: [Header], range: ClosedRange<Int64>?, watch: BodyWatch?)
        async throws(TaskFailure) -> (bytes: [UInt8], finalURL: String, date: String?)
    {
        let req = try request(url, headers: headers, range: range)
        do {
            let (response, finalURL) = try await perform(req, timeout: .seconds(60))
            guard (200..<300).contains(response.status.code) else {
                if response.status.code == 404 || response.status.code == 410 {
                    throw TaskFailure(
                        code: .sourceGone,
                        message: "\(url) answered HTTP \(response.status.code): the playlist is gone", retryable: false)
                }
                throw Self.failure(status: response.status, url: url, headers: response.headers)
            }
            var bytes: [UInt8]
            if let watch {
                bytes = []
                for try await buffer in response.body {
                    watch.count(buffer.readableBytes)
                    guard bytes.count + buffer.readableBytes <= Self.maxPlaylistBytes else {
                        throw NIOTooManyBytesError(maxBytes: Self.maxPlaylistBytes)
                    }
                    bytes += buffer.readableBytesView
                }
            } else {
                bytes = [UInt8](try await response.body.collect(upTo: Self.maxPlaylistBytes).readableBytesView)
            }
            if let range, response.status.code == 200 {
                // The server ignored the Range header and sent the whole file: keep the part asked for.
                let lower = Int(clamping: range.lowerBound)
                let upper = Int(clamping: min(range.upperBound, Int64(bytes.count) - 1))
                bytes = lower <= upper ? Array(bytes[lower...upper]) : []
            }
            return (bytes, finalURL, response.headers.first(name: "Date"))
        } catch let f as TaskFailure {
            throw f
        } catch let e as NIOTooManyBytesError {
            _ = e
            throw TaskFailure(
                code: .playlist,
                message: "\(url) is larger than \(Self.maxPlaylistBytes) bytes: not accepted as a playlist",
                retryable: false)
        } catch {
            throw Self.networkFailure(error, url: url)
        }
    }
}
