import Foundation
import NIOCore
import NIOHTTP1
import StowagePlayback

/// Sends a response's ``FileSlice`` with `sendfile(2)`: the file's bytes go from the page cache to the socket
/// without passing through user space or a buffer per request.
///
/// It sits between NIO's HTTP/1 encoder and the HTTPTypes codec, the one place where a response part's body may
/// be a `FileRegion` (Hummingbird's bodies above it are `ByteBuffer`s). A head carrying the slice field loses the
/// field; its (empty) body is replaced by the file region, opened here and closed once written. A file that
/// changed size since the headers were made, or cannot be opened, closes the connection: the client sees a cut
/// response, never wrong bytes under a right `Content-Length`. Plain HTTP only: TLS must encrypt in user space.
final class FileRegionWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var pending: (handle: NIOFileHandle, slice: FileSlice)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            guard let value = head.headers.first(name: FileSlice.header.canonicalName) else {
                context.write(data, promise: promise)
                return
            }
            head.headers.remove(name: FileSlice.header.canonicalName)
            guard let slice = FileSlice(fieldValue: value), let handle = Self.open(slice) else {
                promise?.fail(ChannelError.ioOnClosedChannel)
                context.close(promise: nil)
                return
            }
            pending = (handle, slice)
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            if let (handle, slice) = pending {
                pending = nil
                let region = FileRegion(
                    fileHandle: handle, readerIndex: slice.offset, endIndex: slice.offset + slice.length)
                let written = context.eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in try? handle.close() }
                context.write(wrapOutboundOut(.body(.fileRegion(region))), promise: written)
            }
            context.write(data, promise: promise)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let (handle, _) = pending { try? handle.close() }
        pending = nil
    }

    /// Opens the slice's file, read-only, and checks it still has the size the headers were made for.
    private static func open(_ slice: FileSlice) -> NIOFileHandle? {
        let fd = Glibc.open(slice.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == slice.size else {
            Glibc.close(fd)
            return nil
        }
        return NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: fd)
    }
}

extension FileRegionWriter {
    /// Puts a writer right after the HTTP/1 response encoder of `pipeline`, below the HTTPTypes codec (Hummingbird
    /// adds extra handlers only above that codec, where bodies are `ByteBuffer`s). Throws when the pipeline has no
    /// encoder: a connection without the writer would send a slice's field instead of its file.
    static func install(in pipeline: ChannelPipeline.SynchronousOperations) throws {
        let encoder = try pipeline.handler(type: HTTPResponseEncoder.self)
        try pipeline.addHandler(FileRegionWriter(), position: .after(encoder))
    }
}
