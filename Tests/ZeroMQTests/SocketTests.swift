import Foundation
import Testing

@testable import ZeroMQ

@Suite("ZeroMQ wrapper")
struct SocketTests {
    /// Round-trips a multipart message DEALER -> ROUTER -> DEALER over one transport.
    func roundTrip(_ endpoint: String) throws {
        let context = try Context()
        let router = try context.socket(.router)
        try router.set(.routerMandatory(true))
        try router.bind(endpoint)
        let bound = try router.lastEndpoint()
        let dealer = try context.socket(.dealer)
        try dealer.set(.routingID(Array("worker-1".utf8)))
        try dealer.connect(bound)
        let payload: [[UInt8]] = [Array("STW1".utf8), [], Array(repeating: 0xAB, count: 100_000)]
        try dealer.send(payload)
        let ready = try Poller.poll([.socket(router, .readable)], timeoutMilliseconds: 5_000)
        #expect(ready[0].contains(.readable))
        let received = try #require(try router.receive())
        #expect(received.count == 4)
        #expect(received[0] == Array("worker-1".utf8))
        #expect(Array(received.dropFirst()) == payload)
        try router.send([received[0], Array("reply".utf8)])
        _ = try Poller.poll([.socket(dealer, .readable)], timeoutMilliseconds: 5_000)
        #expect(try dealer.receive() == [Array("reply".utf8)])
        dealer.close()
        router.close()
    }

    @Test func inprocRoundTrip() throws { try roundTrip("inproc://stowage-test") }

    @Test func tcpRoundTrip() throws { try roundTrip("tcp://127.0.0.1:*") }

    @Test func ipcRoundTrip() throws {
        let path = NSTemporaryDirectory() + "stowage-zmq-\(getpid()).ipc"
        defer { unlink(path) }
        try roundTrip("ipc://" + path)
    }

    @Test func receiveWithoutWaitingReturnsNilWhenEmpty() throws {
        let context = try Context()
        let socket = try context.socket(.dealer)
        try socket.bind("inproc://empty")
        #expect(try socket.receive(dontWait: true) == nil)
        socket.close()
    }

    @Test func routerMandatoryReportsUnroutablePeer() throws {
        let context = try Context()
        let router = try context.socket(.router)
        try router.set(.routerMandatory(true))
        try router.bind("inproc://mandatory")
        #expect(throws: ZMQError.self) { try router.send([Array("nobody".utf8), Array("x".utf8)], dontWait: true) }
        do {
            try router.send([Array("nobody".utf8), Array("x".utf8)], dontWait: true)
        } catch {
            #expect(error.isHostUnreachable)
        }
        router.close()
    }

    @Test func bindFailureCarriesErrno() throws {
        let context = try Context()
        let a = try context.socket(.router)
        try a.bind("inproc://twice")
        let b = try context.socket(.router)
        do {
            try b.bind("inproc://twice")
            Issue.record("second bind should fail")
        } catch {
            #expect(error.code == EADDRINUSE)
            #expect(error.description.contains("inproc://twice"))
        }
        a.close()
        b.close()
    }

    @Test func oversizedMessageIsRefused() throws {
        let context = try Context()
        let router = try context.socket(.router)
        try router.set(.maxMessageSize(1_000))
        try router.bind("tcp://127.0.0.1:*")
        let dealer = try context.socket(.dealer)
        try dealer.connect(try router.lastEndpoint())
        try dealer.send([Array(repeating: 1, count: 5_000)])
        try dealer.send([Array("small".utf8)])
        let ready = try Poller.poll([.socket(router, .readable)], timeoutMilliseconds: 500)
        // The peer that sent too much is disconnected, so nothing from it arrives.
        #expect(!ready[0].contains(.readable))
        dealer.close()
        router.close()
    }

    @Test func pollsFileDescriptors() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var idle = try Poller.poll([.fileDescriptor(fds[0], .readable)], timeoutMilliseconds: 10)
        #expect(!idle[0].contains(.readable))
        var one: UInt8 = 1
        _ = write(fds[1], &one, 1)
        idle = try Poller.poll([.fileDescriptor(fds[0], .readable)], timeoutMilliseconds: 1_000)
        #expect(idle[0].contains(.readable))
    }
}
