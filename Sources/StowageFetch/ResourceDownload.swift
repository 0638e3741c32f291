import AsyncHTTPClient
import Foundation
import NIOCore
import StowageProtocol

#if canImport(Glibc)
    import Glibc
#endif

extension HTTPFetcher {
    /// Streams one resource to `<titlesRoot>/<work.path>`, hashing it and checking its container as the bytes
    /// arrive, gives it its name when whole, syncs it to disk and reports its SHA-256 (a verified file). Memory
    /// stays at one network buffer whatever the size. A fresh fetch writes an unnamed file, linked into place at
    /// the end; one worth resuming (over 64 KiB or of unknown length) is `<path>.part` from its first byte.
    ///
    /// Resumption: bytes already in the `.part` file (from a paused, failed or killed fetch) are kept; the
    /// fetch continues with `Range` and `If-Range` on the validator (ETag, else Last-Modified) recorded in
    /// the `.part` file's resume record. If the origin's copy changed, the file restarts from zero. An exclusive
    /// `flock` on the `.part` file keeps two workers from ever writing the same file. A file of 1 MiB or more is
    /// written around the page cache (see ``PartFile``).
    /// `durable` false: the file is named without waiting for the disk; the caller makes it
    /// durable (``downloadBatch(_:taskID:titlesRoot:progress:)`` syncs once for all its files) before reporting it.
    ///
    /// Fail-over: when `work.url` cannot be fetched (the network, an HTTP error), each of `work.alternates` is
    /// tried in turn (DASH's several BaseURLs, HLS pathways); an origin that just failed is tried last
    /// (``PathwayHealth``). The report says which URL served (``FetchReport/servedBy``); the failure reported is
    /// the first one met.
    public func download(
        _ work: FetchWork, taskID: String, titlesRoot: URL, durable: Bool = true,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws(TaskFailure) -> FetchReport {
        try await download(work, taskID: taskID, titlesRoot: titlesRoot, durable: durable, via: nil, progress: progress)
    }

    /// ``download(_:taskID:titlesRoot:durable:progress:)`` over `connection` when it can carry the request
    /// (see ``answer(_:via:timeout:)``).
    func download(
        _ work: FetchWork, taskID: String, titlesRoot: URL, durable: Bool, via connection: OriginConnection?,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws(TaskFailure) -> FetchReport {
        var first: TaskFailure?
        let urls = [work.url] + (work.alternates ?? [])
        for (index, url) in PathwayHealth.shared.order(urls) {
            var attempt = work
            attempt.url = url
            // After a failed URL its `.part` file may be there (named once it grew past 64 KiB): opened, not made
            // anew, so its bytes are dropped (they came from another URL) instead of the name being taken.
            if first != nil { attempt.fresh = nil }
            do {
                var report: FetchReport
                if let limits = Self.scope.limits(for: url) {
                    // A peer's answer, watched for its pace: through the general client, which a cut closes.
                    let work = attempt
                    report = try await paced(limits, url: url) { watch throws(TaskFailure) in
                        try await self.downloadFrom(
                            work, taskID: taskID, titlesRoot: titlesRoot, durable: durable, via: nil, watch: watch,
                            progress)
                    }
                } else {
                    report = try await downloadFrom(
                        attempt, taskID: taskID, titlesRoot: titlesRoot, durable: durable,
                        via: connection, watch: nil, progress)
                }
                if urls.count > 1 {
                    PathwayHealth.shared.answered(url)
                    if index > 0 {
                        report.servedBy = index
                        report.fellOver = first?.message
                    }
                }
                return report
            } catch {
                guard error.isSourceFailure, !Task.isCancelled else { throw error }
                if urls.count > 1 { PathwayHealth.shared.failed(url) }
                first = first ?? error
            }
        }
        throw first ?? TaskFailure(code: .internal, message: "no URL to fetch", retryable: false)
    }

    private func downloadFrom(
        _ work: FetchWork, taskID: String, titlesRoot: URL, durable: Bool, via connection: OriginConnection?,
        watch: BodyWatch?, _ progress: @escaping @Sendable (Int64) -> Void
    ) async throws(TaskFailure) -> FetchReport {
        guard let destination = TitlePath.file(work.path, under: titlesRoot, for: .stored) else {
            throw TaskFailure(
                code: .refused, message: "destination '\(work.path.prefix(200))' is outside the titles directory",
                retryable: false)
        }
        try Self.checkURL(work.url)  // before anything is created on disk
        var part = try PartFile.open(for: destination.path, fresh: work.fresh == true)
        defer { part.close() }
        let meta = part.size > 0 ? part.loadMeta() : nil
        var resumeFrom: Int64 = 0
        if part.size > 0, let meta, meta.url == work.url, meta.rangeOffset == work.rangeOffset, meta.validator != nil {
            resumeFrom = part.size
        } else {
            try part.truncate()
        }
        if let length = work.rangeLength, resumeFrom > length {
            try part.truncate()
            resumeFrom = 0
        }
        var check = StreamingCheck(container: work.container, decryption: work.decryption)
        if resumeFrom > 0 { try part.replay(into: &check) }
        if let length = work.rangeLength, resumeFrom == length {
            return try await finish(
                &part, check: check, bytes: resumeFrom, contentLength: length, to: destination, from: work.url,
                durable: durable)
        }
        let range = Self.byteRange(of: work, from: resumeFrom)
        var req = try request(work.url, headers: work.headers, range: range)
        if resumeFrom > 0, let validator = meta?.validator {
            req.headers.replaceOrAdd(name: "If-Range", value: validator)
        }
        var written = resumeFrom
        var contentLength: Int64?
        do {
            var response = try await answer(req, via: connection, timeout: .seconds(600))
            let status = response.status.code
            if status == 416 && resumeFrom > 0 {
                // Nothing after the bytes we have: the partial file may already be whole (a fetch that died
                // between its last byte and the rename).
                let total = response.headers.first(name: "Content-Range").flatMap { $0.split(separator: "/").last }
                    .flatMap { Int64($0) }
                if total == resumeFrom {
                    return try await finish(
                        &part, check: check, bytes: resumeFrom, contentLength: total, to: destination, from: work.url,
                        durable: durable)
                }
                try part.truncate()
                part.removeMeta()
                throw TaskFailure(
                    code: .network,
                    message: "\(work.url): the partial file does not fit the origin's copy; restarting it",
                    retryable: true)
            }
            guard (200..<300).contains(status) else {
                throw Self.failure(status: response.status, url: work.url, headers: response.headers)
            }
            if range != nil && status == 200 {
                // Either the origin ignores ranges, or If-Range found the copy changed: start this file over.
                try part.truncate()
                part.removeMeta()
                let why =
                    resumeFrom > 0
                    ? "changed since the partial download (validator differs); restarting it"
                    : "ignored the byte range request (HTTP 200 instead of 206)"
                throw TaskFailure(code: .httpStatus, message: "\(work.url) \(why)", retryable: resumeFrom > 0)
            }
            let validator = response.headers.first(name: "ETag") ?? response.headers.first(name: "Last-Modified")
            contentLength = response.headers.first(name: "Content-Length").flatMap {
                try? OutsideNumbers.bytes("Content-Length").parse($0)
            }.map { $0.saturatingAdding(resumeFrom) }
            // The resume record is worth two file operations only for files big enough to be worth resuming;
            // a small file without one is simply fetched again.
            if resumeFrom == 0 && (contentLength ?? Int64.max) > Self.resumableBytes {
                try part.name()
                part.saveMeta(PartMeta(url: work.url, rangeOffset: work.rangeOffset, validator: validator))
            }
            if (contentLength ?? work.rangeLength ?? 0) >= PartFile.directThreshold { part.writeDirectly() }
            var lastReport = written
            while let buffer = try await response.next() {
                try Task.checkCancellation()
                watch?.count(buffer.readableBytes)
                buffer.withUnsafeReadableBytes { check.feed($0) }
                var rest = buffer
                while rest.readableBytes > 0 {
                    let taken = try rest.withUnsafeReadableBytes { bytes throws(TaskFailure) in try part.take(bytes) }
                    rest.moveReaderIndex(forwardBy: taken)
                    if part.bufferIsFull { try await part.writeBuffer() }
                }
                written += Int64(buffer.readableBytes)
                await rateLimiter.consume(buffer.readableBytes)
                if written - lastReport >= 1 << 20 {
                    progress(written)
                    lastReport = written
                }
            }
        } catch let f as TaskFailure {
            throw f
        } catch {
            try? await part.flush()  // what arrived stays for the next attempt to resume from
            var f = Self.networkFailure(error, url: work.url)
            f.madeProgress = written > resumeFrom
            throw f
        }
        if let contentLength, contentLength != written {
            try? await part.flush()  // the bytes that did arrive stay for the next attempt
            var f = TaskFailure(
                code: .network, message: "\(work.url): body ended after \(written) of \(contentLength) bytes",
                retryable: true)
            f.madeProgress = written > resumeFrom
            throw f
        }
        if let expected = work.rangeLength, expected != written {
            throw TaskFailure(
                code: .network, message: "\(work.url): got \(written) bytes of a \(expected)-byte range",
                retryable: true)
        }
        return try await finish(
            &part, check: check, bytes: written, contentLength: contentLength, to: destination, from: work.url,
            durable: durable)
    }

    /// Files larger than this keep a resume record while they download.
    static let resumableBytes: Int64 = 64 * 1024

    /// Checks the complete `.part` file's container, makes it durable, renames it into place and reports it with
    /// its hash. A file whose structure is wrong is dropped (the next attempt fetches it whole).
    private func finish(
        _ part: inout PartFile, check: StreamingCheck, bytes: Int64, contentLength: Int64?, to destination: URL,
        from url: String, durable: Bool
    ) async throws(TaskFailure) -> FetchReport {
        let sha256: String
        var check = check
        switch check.finish() {
        case .success(let digest): sha256 = digest
        case .failure(let problem):
            try? part.truncate()
            part.removeMeta()
            throw TaskFailure(
                code: .integrity, message: "\(url): \(problem.description); not stored", retryable: true)
        }
        try await part.commit(to: destination.path, durable: durable)
        return FetchReport(bytes: bytes, contentLength: contentLength, sha256: sha256)
    }

    static func ioFailure(_ code: Int32, path: String) -> TaskFailure {
        if code == ENOSPC || code == EDQUOT {
            return TaskFailure(code: .diskFull, message: "no space left on the device holding \(path)", retryable: true)
        }
        return TaskFailure(code: .io, message: "\(path): \(String(cString: strerror(code)))", retryable: true)
    }

    /// The bytes of `work` to ask for when `resumeFrom` of them are already stored (nil: the whole file).
    static func byteRange(of work: FetchWork, from resumeFrom: Int64) -> ClosedRange<Int64>? {
        let base = work.rangeOffset ?? 0
        if let length = work.rangeLength {
            let first = base.saturatingAdding(resumeFrom)
            return first...max(first, base.saturatingAdding(max(length, 1) - 1))
        }
        return resumeFrom > 0 ? resumeFrom...Int64.max : nil
    }
}

extension TaskFailure {
    /// The source could not give the bytes (unreachable, an HTTP error, gone): another URL of the same bytes
    /// (DASH's several BaseURLs) may.
    var isSourceFailure: Bool { [.network, .httpStatus, .sourceGone].contains(code) }
}
