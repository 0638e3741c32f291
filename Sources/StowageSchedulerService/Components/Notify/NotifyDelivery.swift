import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import StowageProtocol

/// POSTs the notifications the loop hands over through ``NotifyFeed`` and reports each outcome back. It is a
/// `Service` of the scheduler process's `ServiceGroup` beside the poll loop, like the catalogue fetcher (started,
/// stopped and awaited with it), so a receiver that is slow or down never holds the loop; which event goes when
/// (order per title, one out per receiver, backoff) is the loop's decision (``NotifyComponent``), not this
/// service's. Its graceful shutdown drops the POSTs in flight: their events are still in the store's outbox and go
/// again after the restart (delivered at least once).
///
/// Every POST ends: its answer, head and body, is read under `limits` (``BodyWatch``), so a receiver that answers
/// its head and then nothing is cut and the event retried with backoff, not held for ever. Redirects are never
/// followed: a signed event (and the URL's query) goes to the URL the operator named and nowhere else, and a 3xx
/// is a failed delivery whose error says so.
public struct NotifyDelivery: Service, CustomStringConvertible {
    public let feed: NotifyFeed
    public let logger: Logger
    /// The pace and the total time one POST may take.
    public let limits: BodyLimits
    /// Seconds to wait for the answer's head.
    public var timeout: Int64 = 10

    public init(feed: NotifyFeed, logger: Logger, limits: BodyLimits) {
        self.feed = feed
        self.logger = logger
        self.limits = limits
    }

    /// The delivery of a scheduler run with `options`: nil without `--notify` receivers (nothing to deliver).
    public init?(scheduler options: SchedulerService.Options, logger: Logger) {
        guard let feed = options.notify.feed, !options.notify.receivers.isEmpty else { return nil }
        self.init(feed: feed, logger: logger, limits: options.answerPace.total(BodyLimits.notifyTotal))
    }

    /// The service's name in the group's logs.
    public var description: String { "notify-delivery" }

    /// The client's settings: no redirect is followed.
    static var configuration: HTTPClient.Configuration {
        HTTPClient.Configuration(redirectConfiguration: .disallow)
    }

    /// Delivers until graceful shutdown (or cancellation); each parcel on a child task of its own.
    public func run() async {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.configuration)
        let (feed, delivery) = (feed, self)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    for parcel in feed.parcels.take() {
                        group.addTask { feed.outcomes.post(await delivery.post(parcel, client: client)) }
                    }
                    try? await Task.sleep(for: .milliseconds(50))
                }
                group.cancelAll()
            }
        }
        try? await client.shutdown()
    }

    private func post(_ parcel: NotifyFeed.Parcel, client: HTTPClient) async -> NotifyFeed.Outcome {
        var request = HTTPClientRequest(url: parcel.receiver)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "stowage-scheduler")
        if let signature = parcel.signature { request.headers.add(name: NotifySignature.header, value: signature) }
        request.body = .bytes(ByteBuffer(bytes: parcel.body))
        let (timeout, sent) = (timeout, request)
        do {
            let status = try await BodyWatch.run(limits, host: URLHost.of(parcel.receiver) ?? "the receiver") {
                watch in
                let response = try await client.execute(sent, timeout: .seconds(timeout))
                var kept = 0
                for try await buffer in response.body {
                    watch.count(buffer.readableBytes)
                    kept += buffer.readableBytes
                    if kept > 64 << 10 { break }  // what a receiver says past this is not read
                }
                return response.status.code
            }
            if (300..<400).contains(status) {
                return .failed(
                    id: parcel.id, receiver: parcel.receiver,
                    error: "answered \(status): a redirect, not followed (point --notify at the final URL)")
            }
            guard (200..<300).contains(status) else {
                return .failed(id: parcel.id, receiver: parcel.receiver, error: "answered \(status)")
            }
            return .delivered(id: parcel.id, receiver: parcel.receiver)
        } catch let slow as SlowAnswer {
            return .failed(id: parcel.id, receiver: parcel.receiver, error: slow.message)
        } catch {
            return .failed(id: parcel.id, receiver: parcel.receiver, error: "\(error)")
        }
    }
}
