import CSystemShims
import Foundation
import StowageProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Group commit for files: fetches that finished writing wait here together, and one `syncfs` of their
/// filesystem makes all of them durable (data, inode and the rename into place) before any is reported.
///
/// A `fsync` per file costs a disk round trip per file, and libdispatch runs at most a few blocking calls at
/// once; with small segments that round trip, not the network, set the pace. One thread syncs whatever has
/// gathered while the previous sync ran, so the number of syncs follows the disk's speed, not the file count.
final class DurabilityGroup: Sendable {
    private struct Waiter {
        let fd: Int32
        let path: String
        let continuation: CheckedContinuation<Result<Void, TaskFailure>, Never>
    }

    private let pending = Mutex<[Waiter]>([])
    private let wake = DispatchSemaphore(value: 0)

    /// One per process: syncs are per filesystem, and a single thread batches best.
    static let shared = DurabilityGroup()

    private init() {
        let thread = Thread { [self] in self.loop() }
        thread.name = "stowage.durability"
        thread.start()
    }

    /// Returns once the file open as `fd` (and everything written to its filesystem before the call, renames
    /// included) is on stable storage. `path` names the file in errors.
    func sync(fd: Int32, path: String) async throws(TaskFailure) {
        let result = await withCheckedContinuation { continuation in
            pending.withLock { $0.append(Waiter(fd: fd, path: path, continuation: continuation)) }
            wake.signal()
        }
        try result.get()
    }

    private func loop() {
        while true {
            wake.wait()
            let batch = pending.withLock { waiters in
                let taken = waiters
                waiters.removeAll(keepingCapacity: true)
                return taken
            }
            guard !batch.isEmpty else { continue }
            // Every waiter's file lives under the titles root (one filesystem): one sync covers them all. A
            // waiter on another filesystem (a titles root with mounts below it) gets its own.
            var synced: [UInt64: Int32] = [:]
            for waiter in batch {
                var st = stat()
                let device = fstat(waiter.fd, &st) == 0 ? UInt64(st.st_dev) : UInt64.max
                if synced[device] == nil {
                    synced[device] = stowage_syncfs(waiter.fd) == 0 ? 0 : errno
                }
                if let code = synced[device], code != 0 {
                    waiter.continuation.resume(returning: .failure(HTTPFetcher.ioFailure(code, path: waiter.path)))
                } else {
                    waiter.continuation.resume(returning: .success(()))
                }
            }
        }
    }
}
