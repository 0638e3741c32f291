import Synchronization

/// The aligned buffers of direct writes, kept for the next file: a buffer this size comes from `mmap`, and a fresh
/// one costs a page fault and a zeroed page for every 4 KiB of it, on every file. At most ``kept`` wait here
/// (8 MiB); more are freed.
enum DirectBufferPool {
    /// Buffers kept for reuse; as many as files written directly at once by a worker of default concurrency.
    static let kept = 16

    /// The free buffers' addresses (raw pointers are not Sendable; an address leaves the mutex with one owner).
    private static let free = Mutex<[UInt]>([])

    /// A buffer of ``PartFile/directBufferBytes`` aligned to ``PartFile/directAlignment``.
    static func take() -> UnsafeMutableRawBufferPointer {
        if let address = free.withLock({ $0.popLast() }), let base = UnsafeMutableRawPointer(bitPattern: address) {
            return UnsafeMutableRawBufferPointer(start: base, count: PartFile.directBufferBytes)
        }
        return .allocate(byteCount: PartFile.directBufferBytes, alignment: PartFile.directAlignment)
    }

    /// Returns a buffer from ``take()``; the caller no longer touches it.
    static func give(_ buffer: UnsafeMutableRawBufferPointer) {
        let address = UInt(bitPattern: buffer.baseAddress)
        let keep = free.withLock { buffers in
            guard buffers.count < kept else { return false }
            buffers.append(address)
            return true
        }
        if !keep { buffer.deallocate() }
    }
}
