import CSystemShims
import Foundation
import StowageProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The file one fetch writes: an unnamed file that gets its final name when whole, or a `.part` file held under
/// an exclusive lock (a fetch that may be resumed).
///
/// The file always holds a prefix of the resource: a fetch that dies leaves bytes a later one can resume from.
/// A large file is written around the page cache (``writeDirectly()``): the bytes gather in an aligned buffer and
/// go to the device in blocks with `O_DIRECT`, so the kernel neither copies them into its cache nor writes them
/// back later, and the sync that makes the file durable finds almost nothing left to do.
struct PartFile: ~Copyable {
    let path: String
    /// The resume record's fallback file, for filesystems without extended attributes.
    var metaPath: String { path + ".meta" }
    fileprivate(set) var fd: Int32
    /// Bytes of the file so far, counting those still waiting in the direct-write buffer.
    private(set) var size: Int64
    /// While writes go around the page cache: an aligned buffer whose first byte belongs at `bufferOffset`.
    private var direct: UnsafeMutableRawBufferPointer?
    private var bufferOffset: Int64 = 0
    private var buffered = 0
    /// Where the resume record was kept, if this fetch saved or found one.
    var metaStore: MetaStore?

    enum MetaStore { case attribute, file }

    /// Direct writes use blocks aligned to this (the logical block size of every common device).
    static let directAlignment = 4096
    /// The direct-write buffer: one per file being written directly.
    static let directBufferBytes = 512 * 1024
    /// Files expected to be at least this large are written directly.
    static let directThreshold: Int64 = 1 << 20
    /// The extended attribute holding the resume record.
    static let metaAttribute = "user.stowage.resume"

    /// Whether the file has its `.part` name. A fresh fetch writes an unnamed file (``open(for:)``), which costs
    /// the filesystem one directory entry instead of two (the `.part` name, then the rename) and leaves nothing
    /// behind if the process dies; it is named only if it must outlive the fetch (``name()``).
    private(set) var named: Bool

    /// Unnamed files work here: the kernel makes them (checked per folder when opening), `/proc` can name them,
    /// and naming one has not been refused yet.
    static var unnamedFilesWork: Bool { procIsMounted && !namingRefused.load(ordering: .relaxed) }
    private static let procIsMounted = access("/proc/self/fd", F_OK) == 0
    /// Set when the kernel refused to name an unnamed file (a confined process, `/proc` hidden): that fetch fails
    /// (retryable) and every later one of this process writes a named `.part` file.
    static let namingRefused = Atomic<Bool>(false)

    /// A `.part` file at `path`, created if missing, locked for this fetch.
    init(path: String) throws(TaskFailure) {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw HTTPFetcher.ioFailure(errno, path: path) }
        try self.init(path: path, locking: fd)
    }

    /// Takes the exclusive lock of the open `.part` file `fd` (or closes it and fails) and learns its size.
    private init(path: String, locking fd: Int32) throws(TaskFailure) {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            throw Self.busy(path)
        }
        self.path = path
        self.fd = fd
        named = true
        var st = stat()
        fstat(fd, &st)
        size = Int64(st.st_size)
        lseek(fd, 0, SEEK_END)
    }

    /// An empty unnamed file that becomes `path` when named.
    private init(path: String, unnamed fd: Int32) {
        self.path = path
        self.fd = fd
        named = false
        size = 0
    }

    /// The file a fetch of `destination` writes: its `.part` file if there is one (bytes to resume), else an
    /// unnamed file in its folder (a named `.part` where the filesystem has no unnamed files). Creates the
    /// folder if it is missing. `fresh`: no `.part` file can exist (``FetchWork/fresh``); it is not looked for.
    static func open(for destination: String, fresh: Bool = false) throws(TaskFailure) -> PartFile {
        let path = destination + ".part"
        let folder = String(destination[..<(destination.lastIndex(of: "/") ?? destination.startIndex)])
        var fd: Int32 = -1
        if !fresh {
            fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
            if fd >= 0 { return try PartFile(path: path, locking: fd) }
        }
        if (fresh || errno == ENOENT) && unnamedFilesWork {
            fd = stowage_open_unnamed(folder, 0o644)
            if fd < 0 && errno == ENOENT {
                try createFolder(folder)
                fd = stowage_open_unnamed(folder, 0o644)
            }
            if fd >= 0 { return PartFile(path: path, unnamed: fd) }
            // EOPNOTSUPP, EISDIR, EINVAL: this filesystem has no unnamed files; a named one then.
        }
        fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT {
            try createFolder(folder)
            fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw HTTPFetcher.ioFailure(errno, path: path) }
        return try PartFile(path: path, locking: fd)
    }

    private static func createFolder(_ folder: String) throws(TaskFailure) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw TaskFailure(
                code: .io, message: "cannot create \(folder): \(error.localizedDescription)", retryable: true)
        }
    }

    /// Naming an unnamed file failed with `code`. Refused (`EACCES`, `EPERM`, or `ENOENT` while the folder is
    /// there: `/proc` cannot name it) turns unnamed files off for this process; the failure is retryable.
    private static func namingFailure(_ code: Int32, path: String) -> TaskFailure {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard code == EACCES || code == EPERM || (code == ENOENT && access(folder, F_OK) == 0) else {
            return HTTPFetcher.ioFailure(code, path: path)
        }
        namingRefused.store(true, ordering: .relaxed)
        return TaskFailure(
            code: .io,
            message: "\(path): the kernel refused to name the finished file (\(String(cString: strerror(code))));"
                + " later fetches write .part files instead",
            retryable: true)
    }

    private static func busy(_ path: String) -> TaskFailure {
        TaskFailure(code: .io, message: "\(path) is being written by another fetch", retryable: true)
    }

    /// Gives an unnamed file its `.part` name and takes its lock: from here on its bytes outlive this fetch (and
    /// this process) for a later fetch to resume. Another fetch's `.part` file in the way fails it (retryable).
    mutating func name() throws(TaskFailure) {
        guard !named else { return }
        guard stowage_link_unnamed(fd, path) == 0 else {
            let code = errno
            throw code == EEXIST ? Self.busy(path) : Self.namingFailure(code, path: path)
        }
        named = true
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { throw Self.busy(path) }
    }

    deinit {
        if let direct { DirectBufferPool.give(direct) }
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Empties the file. A file already empty is left alone: on ext4 a truncation to zero marks the file for
    /// writeback at close (`auto_da_alloc`), which would cost a disk write per file instead of one per sync.
    mutating func truncate() throws(TaskFailure) {
        bufferOffset = 0
        buffered = 0
        guard size > 0 else { return }
        guard ftruncate(fd, 0) == 0 else { throw HTTPFetcher.ioFailure(errno, path: path) }
        lseek(fd, 0, SEEK_SET)
        size = 0
    }

    /// Feeds the bytes already in the file (a resumed fetch) to `check`, so its hash covers the whole file.
    /// Call before ``writeDirectly()``.
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

    /// From now on, writes go around the page cache in aligned blocks. The last partial block already in the
    /// file (a resumed fetch) is read back and written again with what follows it. A filesystem without direct
    /// I/O (tmpfs on older kernels, some network filesystems) keeps buffered writes.
    mutating func writeDirectly() {
        guard direct == nil else { return }
        let alignment = Int64(Self.directAlignment)
        let buffer = DirectBufferPool.take()
        let start = size - size % alignment
        let tail = Int(size - start)
        guard tail == 0 || pread(fd, buffer.baseAddress, tail, off_t(start)) == tail,
            stowage_set_direct_io(fd, 1) == 0
        else {
            DirectBufferPool.give(buffer)
            return
        }
        direct = buffer
        bufferOffset = start
        buffered = tail
    }

    /// Takes the next bytes of the file: written at once when writes are buffered (all of them), or copied into
    /// the direct-write buffer as far as it has room. Returns how many were taken; when the buffer is full
    /// (``bufferIsFull``), ``writeBuffer()`` empties it before more can be taken.
    mutating func take(_ bytes: UnsafeRawBufferPointer) throws(TaskFailure) -> Int {
        guard let buffer = direct else {
            try check(Self.writeAll(fd: fd, bytes, at: nil))
            size += Int64(bytes.count)
            return bytes.count
        }
        let n = min(bytes.count, buffer.count - buffered)
        (buffer.baseAddress! + buffered).copyMemory(from: bytes.baseAddress!, byteCount: n)
        buffered += n
        size += Int64(n)
        return n
    }

    /// Whether writes go around the page cache now.
    var writesDirectly: Bool { direct != nil }

    /// The direct-write buffer has no room left.
    var bufferIsFull: Bool { direct.map { buffered == $0.count } ?? false }

    /// Writes the whole blocks of the direct-write buffer to the device on ``BlockingIO``'s threads (a direct
    /// write waits for the device; the task waits without holding one of the few threads that run tasks) and
    /// keeps the partial block at its front.
    mutating func writeBuffer() async throws(TaskFailure) {
        guard let buffer = direct else { return }
        let count = buffered - buffered % Self.directAlignment
        guard count > 0 else { return }
        let (fd, offset, address) = (fd, bufferOffset, UInt(bitPattern: buffer.baseAddress))
        var code = await BlockingIO.run {
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count)
            return Self.writeAll(fd: fd, bytes, at: offset)
        }
        if code == EINVAL {  // the filesystem refuses direct writes after all: buffered from here on
            _ = stowage_set_direct_io(fd, 0)
            code = Self.writeAll(fd: fd, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: offset)
        }
        try check(code)
        bufferOffset += Int64(count)
        buffered -= count
        if buffered > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + count, byteCount: buffered) }
    }

    /// Writes whatever waits in the direct-write buffer (whole blocks directly, the last partial block through
    /// the page cache) and goes back to buffered writes: afterwards the file on disk holds all ``size`` bytes.
    mutating func flush() async throws(TaskFailure) {
        guard direct != nil else { return }
        try await writeBuffer()
        guard let buffer = direct else { return }
        direct = nil
        defer { DirectBufferPool.give(buffer) }
        _ = stowage_set_direct_io(fd, 0)
        if buffered > 0 {
            try check(Self.writeAll(fd: fd, UnsafeRawBufferPointer(rebasing: buffer[0..<buffered]), at: bufferOffset))
            bufferOffset += Int64(buffered)
            buffered = 0
        }
        lseek(fd, off_t(size), SEEK_SET)
    }

    /// `write` (at the file position) or `pwrite` (at `offset`) of every byte, retrying short writes; 0 or the
    /// errno of the write that failed.
    private static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64?) -> Int32 {
        var done = 0
        while done < bytes.count {
            let base = bytes.baseAddress! + done
            let n =
                offset.map { pwrite(fd, base, bytes.count - done, off_t($0) + off_t(done)) }
                ?? write(fd, base, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return 0
    }

    private func check(_ code: Int32) throws(TaskFailure) {
        if code != 0 { throw HTTPFetcher.ioFailure(code, path: path) }
    }

    /// Moves the file to its final name (atomic) and returns once it is durable there: its data, its inode and
    /// the name, through the process's ``DurabilityGroup`` (one filesystem sync for every file finishing at
    /// about the same time). Until then nothing reports the file, so a crash before the sync leaves a file the
    /// store does not count and the next attempt replaces.
    /// `durable` false: the rename only (the caller syncs later, before reporting the file).
    mutating func commit(to destination: String, durable: Bool = true) async throws(TaskFailure) {
        try await flush()
        removeMeta()
        if named {
            guard rename(path, destination) == 0 else { throw HTTPFetcher.ioFailure(errno, path: destination) }
        } else {
            try link(to: destination)
        }
        if durable { try await DurabilityGroup.shared.sync(fd: fd, path: destination) }
    }

    /// Names an unnamed file `destination`. An earlier copy in the way (a file fetched again) is replaced
    /// atomically: the file gets a name of its own first, renamed over the old one.
    private mutating func link(to destination: String) throws(TaskFailure) {
        guard stowage_link_unnamed(fd, destination) != 0 else { return }
        let code = errno
        guard code == EEXIST else { throw Self.namingFailure(code, path: destination) }
        let own = "\(destination).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).new"
        guard stowage_link_unnamed(fd, own) == 0 else { throw Self.namingFailure(errno, path: own) }
        guard rename(own, destination) == 0 else {
            let code = errno
            unlink(own)
            throw HTTPFetcher.ioFailure(code, path: destination)
        }
    }

    mutating func close() {
        if let direct { DirectBufferPool.give(direct) }
        direct = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
