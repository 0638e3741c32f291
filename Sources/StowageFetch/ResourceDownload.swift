import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import StowageProtocol
#if canImport(Glibc)
import Glibc
#endif

extension HTTPFetcher {
    /// Streams one resource to `<titlesRoot>/<work.path>`: into a `.part` file unique to this task, hashing
    /// as bytes arrive, then renamed into place. Memory stays at one network buffer whatever the size.
    public func download(_ work: FetchWork, taskID: String, titlesRoot: URL,
                         progress: @escaping @Sendable (Int64) -> Void) async throws(TaskFailure) -> FetchReport {
        guard let destination = Self.safeDestination(work.path, under: titlesRoot) else {
            throw TaskFailure(code: .refused, message: "destination '\(work.path.prefix(200))' is outside the titles directory", retryable: false)
        }
        let range = work.rangeOffset.flatMap { off in work.rangeLength.map { off...(off + max($0, 1) - 1) } }
        let req = try request(work.url, headers: work.headers, range: range)
        let directory = destination.deletingLastPathComponent()
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw TaskFailure(code: .io, message: "cannot create \(directory.path): \(error.localizedDescription)", retryable: true)
        }
        let part = destination.path + ".\(taskID).part"
        let fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.ioFailure(errno, path: part) }
        var closed = false
        defer {
            if !closed { close(fd) }
            unlink(part) // no-op after a successful rename
        }
        var hasher = SHA256()
        var written: Int64 = 0
        var contentLength: Int64?
        do {
            let response = try await client.execute(req, timeout: .seconds(600), logger: logger)
            let status = response.status.code
            if range != nil && status == 200 {
                throw TaskFailure(code: .httpStatus, message: "\(work.url) ignored the byte range request (HTTP 200 instead of 206)", retryable: false)
            }
            guard (200..<300).contains(status) else { throw Self.failure(status: response.status, url: work.url, headers: response.headers) }
            contentLength = response.headers.first(name: "Content-Length").flatMap { Int64($0) }
            var lastReport = written
            for try await buffer in response.body {
                try Task.checkCancellation()
                try buffer.withUnsafeReadableBytes { bytes throws(TaskFailure) in
                    hasher.update(bufferPointer: bytes)
                    try Self.writeAll(fd, bytes, path: part)
                }
                written += Int64(buffer.readableBytes)
                if written - lastReport >= 1 << 20 {
                    progress(written)
                    lastReport = written
                }
            }
        } catch let f as TaskFailure {
            throw f
        } catch {
            throw Self.networkFailure(error, url: work.url)
        }
        if let contentLength, contentLength != written {
            throw TaskFailure(code: .network, message: "\(work.url): body ended after \(written) of \(contentLength) bytes", retryable: true)
        }
        if let expected = work.rangeLength, expected != written {
            throw TaskFailure(code: .network, message: "\(work.url): got \(written) bytes of a \(expected)-byte range", retryable: true)
        }
        guard fsync(fd) == 0 else { throw Self.ioFailure(errno, path: part) }
        close(fd)
        closed = true
        guard rename(part, destination.path) == 0 else { throw Self.ioFailure(errno, path: destination.path) }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return FetchReport(bytes: written, sha256: digest, contentLength: contentLength)
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(TaskFailure) {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw ioFailure(errno, path: path)
            }
            offset += n
        }
    }

    static func ioFailure(_ code: Int32, path: String) -> TaskFailure {
        if code == ENOSPC || code == EDQUOT {
            return TaskFailure(code: .diskFull, message: "no space left on the device holding \(path)", retryable: true)
        }
        return TaskFailure(code: .io, message: "\(path): \(String(cString: strerror(code)))", retryable: true)
    }

    /// `path` resolved under `root`, or nil if it would leave it (absolute, `..`, control characters).
    public static func safeDestination(_ path: String, under root: URL) -> URL? {
        guard !path.isEmpty, !path.hasPrefix("/"), path.utf8.count < 1024,
              !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) else { return nil }
        return root.appendingPathComponent(path)
    }
}
