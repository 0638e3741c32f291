import Foundation
import NIOHTTP1
import StowageProtocol

#if canImport(Glibc)
    import Glibc
#endif

extension HTTPFetcher {
    /// Fetches a batch one item after another (one connection), each hashed and checked as it streams in,
    /// then makes every stored file durable with one filesystem sync before returning: nothing in the report
    /// is fetched unless it is on stable storage. `progress` gets the bytes of the whole batch so far.
    ///
    /// An item that fails for its own reasons (an HTTP status, a broken container) does not stop the rest; a
    /// failure the rest would share (connectivity, a full disk or other I/O trouble, cancellation) leaves them
    /// `notAttempted`.
    public func downloadBatch(
        _ batch: FetchBatch, taskID: String, titlesRoot: URL, progress: @escaping @Sendable (Int64) -> Void
    ) async -> FetchBatchReport {
        var results: [FetchItemResult] = []
        var done: Int64 = 0
        var stop = false
        /// Fetches the next item (over `connection` when given); false when the rest should not be tried.
        func next(via connection: OriginConnection?) async {
            let work = batch.items[results.count]
            let before = done
            do {
                let report = try await download(
                    work, taskID: taskID, titlesRoot: titlesRoot, durable: false, via: connection
                ) { progress(before + $0) }
                done += report.bytes
                results.append(.fetched(report))
            } catch {
                results.append(.failed(error))
                // The rest would meet it too, or the origin asked us to slow down (429/503 + Retry-After).
                stop = Self.sharedFailures.contains(error.code) || error.retryAfter != nil
            }
        }
        // Plain-HTTP items go over one connection of their own (a new one if the origin closes it); when the
        // origin cannot be reached that way, the rest go through the general client. Not under a bandwidth cap:
        // a body held back longer than the connection's read timeout would end it.
        // Nor from a peer box, whose answers are watched for their pace (``BodyWatch``) through the general client.
        let paced = batch.items.first.map { Self.scope.limits(for: $0.url) != nil } ?? false
        var origin = rateLimiter.isUnlimited && !paced ? batch.items.first.flatMap { Origin(of: $0.url) } : nil
        while results.count < batch.items.count, !stop, !Task.isCancelled {
            if let reachable = origin {
                do {
                    try await OriginConnection.with(reachable) { connection in
                        repeat {
                            if connection.wantsAhead {
                                let sent = await connection.sendAhead(
                                    requestsAhead(batch.items[results.count...], on: connection.origin, titlesRoot))
                                pipelinedRequests.add(sent, ordering: .relaxed)
                            }
                            await next(via: connection)
                        } while connection.reusable && results.count < batch.items.count && !stop && !Task.isCancelled
                    }
                    continue
                } catch {
                    origin = nil
                    if results.count < batch.items.count, !stop { continue }
                }
            } else {
                await next(via: nil)
            }
        }
        results += Array(repeating: .notAttempted, count: batch.items.count - results.count)
        guard results.contains(where: { if case .fetched = $0 { true } else { false } }) else {
            return FetchBatchReport(results: results)
        }
        do {
            // The title's own folder: its filesystem is the one the batch wrote to (a title may sit on a mount).
            let folder = batch.items.first.flatMap { TitlePath.file($0.path, under: titlesRoot, for: .stored) }?
                .deletingLastPathComponent()
            try await Self.syncFilesystem(of: folder ?? titlesRoot)
        } catch {
            // Not known to be durable: none of it counts.
            results = results.map { if case .fetched = $0 { .failed(error) } else { $0 } }
        }
        return FetchBatchReport(results: results)
    }

    /// The GETs of the next items that are known before their fetch starts, for writing them ahead on a connection
    /// to `origin` (``OriginConnection/sendAhead(_:)``): fresh files (no partial file to resume, so no `If-Range`)
    /// under that origin, from the first item on, up to ``OriginConnection/pipelineDepth``; the first item that is
    /// not such a file ends the list.
    func requestsAhead(_ items: ArraySlice<FetchWork>, on origin: Origin, _ titlesRoot: URL)
        -> [(target: String, headers: HTTPHeaders)]
    {
        var upcoming: [(target: String, headers: HTTPHeaders)] = []
        for work in items.prefix(OriginConnection.pipelineDepth) {
            guard work.fresh == true, let target = origin.target(of: work.url),
                TitlePath.file(work.path, under: titlesRoot, for: .stored) != nil,
                let request = try? request(work.url, headers: work.headers, range: Self.byteRange(of: work, from: 0))
            else { break }
            upcoming.append((target, request.headers))
        }
        return upcoming
    }

    /// Failures that the other items of a batch would meet as well.
    static let sharedFailures: Set<ErrorCode> = [.network, .canceled, .diskFull, .io]

    /// One sync of the filesystem holding `directory` (through the process's ``DurabilityGroup``).
    static func syncFilesystem(of directory: URL) async throws(TaskFailure) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ioFailure(errno, path: directory.path) }
        defer { close(fd) }
        try await DurabilityGroup.shared.sync(fd: fd, path: directory.path)
    }
}
