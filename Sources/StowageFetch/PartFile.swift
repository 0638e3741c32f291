import Foundation
import StowageProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A `.part` file held under an exclusive lock while one fetch writes it.
struct PartFile {
    let path: String
    var metaPath: String { path + ".meta" }
    private var fd: Int32
    private(set) var size: Int64

    init(path: String) throws(TaskFailure) {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw HTTPFetcher.ioFailure(errno, path: path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            throw TaskFailure(code: .io, message: "\(path) is being written by another fetch", retryable: true)
        }
        var st = stat()
        fstat(fd, &st)
        size = Int64(st.st_size)
        lseek(fd, 0, SEEK_END)
    }

    /// Empties the file. A file already empty is left alone: on ext4 a truncation to zero marks the file for
    /// writeback at close (`auto_da_alloc`), which would cost a disk write per file instead of one per sync.
    mutating func truncate() throws(TaskFailure) {
        guard size > 0 else { return }
        guard ftruncate(fd, 0) == 0 else { throw HTTPFetcher.ioFailure(errno, path: path) }
        lseek(fd, 0, SEEK_SET)
        size = 0
    }

    /// Feeds the bytes already in the file (a resumed fetch) to `check`, so its hash covers the whole file.
    func replay(into check: inout StreamingCheck) throws(TaskFailure) {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let n = pread(fd, buffer.baseAddress, min(chunk, Int(size - offset)), off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw HTTPFetcher.ioFailure(errno, path: path)
            }
            if n == 0 { throw TaskFailure(code: .io, message: "\(path) ended while reading it", retryable: true) }
            check.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += Int64(n)
        }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(TaskFailure) {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw HTTPFetcher.ioFailure(errno, path: path)
            }
            offset += n
        }
        size += Int64(bytes.count)
    }

    /// Moves the file to its final name (atomic) and returns once it is durable there: its data, its inode and
    /// the rename, through the process's ``DurabilityGroup`` (one filesystem sync for every file finishing at
    /// about the same time). Until then nothing reports the file, so a crash before the sync leaves a file the
    /// store does not count and the next attempt replaces.
    /// `durable` false: the rename only (the caller syncs later, before reporting the file).
    func commit(to destination: String, durable: Bool = true) async throws(TaskFailure) {
        guard rename(path, destination) == 0 else { throw HTTPFetcher.ioFailure(errno, path: destination) }
        if durable { try await DurabilityGroup.shared.sync(fd: fd, path: destination) }
    }

    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
