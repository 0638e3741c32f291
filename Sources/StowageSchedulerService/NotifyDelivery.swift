import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import StowageProtocol

/// POSTs the notifications the loop hands over through ``NotifyFeed`` and reports each outcome back. It runs in the
/// scheduler process beside the poll loop, like the catalogue fetcher, so a receiver that is slow or down never
/// holds the loop; which event goes when (order per title, backoff) is the loop's decision, not this task's.
public struct NotifyDelivery: Sendable {
    public let feed: NotifyFeed
    public let logger: Logger
    /// Seconds one POST may take before it counts as failed.
    public var timeout: Int64 = 10

    public init(feed: NotifyFeed, logger: Logger) {
        self.feed = feed
        self.logger = logger
    }

    /// Delivers until the task is canceled; each parcel on a child task of its own.
    public func run() async {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                for parcel in feed.takeParcels() {
                    group.addTask { feed.report(await post(parcel, client: client)) }
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            group.cancelAll()
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
        do {
            let response = try await client.execute(request, timeout: .seconds(timeout))
            _ = try? await response.body.collect(upTo: 64 << 10)
            guard (200..<300).contains(response.status.code) else {
                return .failed(
                    id: parcel.id, receiver: parcel.receiver, error: "answered \(response.status.code)")
            }
            return .delivered(id: parcel.id, receiver: parcel.receiver)
        } catch {
            return .failed(id: parcel.id, receiver: parcel.receiver, error: "\(error)")
        }
    }
}
