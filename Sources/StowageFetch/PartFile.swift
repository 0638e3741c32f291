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

    mutating func truncate() throws(TaskFailure) {
        guard ftruncate(fd, 0) == 0 else { throw HTTPFetcher.ioFailure(errno, path: path) }
        lseek(fd, 0, SEEK_SET)
        size = 0
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

    /// Makes the bytes durable and moves the file to its final name (atomic). `fsync` blocks for as long as
    /// the disk takes, so it runs on a thread of its own, never on the cooperative pool that carries every
    /// other fetch's bytes.
    func commit(to destination: String) async throws(TaskFailure) {
        let fd = self.fd, path = self.path
        let outcome: Result<Void, TaskFailure> = await withCheckedContinuation { continuation in
            Self.durability.async {
                continuation.resume(
                    returning: Result { () throws(TaskFailure) in
                        guard fsync(fd) == 0 else { throw HTTPFetcher.ioFailure(errno, path: path) }
                        guard rename(path, destination) == 0 else {
                            throw HTTPFetcher.ioFailure(errno, path: destination)
                        }
                    })
            }
        }
        try outcome.get()
    }

    private static let durability = DispatchQueue(label: "stowage.fetch.durability", attributes: .concurrent)

    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
