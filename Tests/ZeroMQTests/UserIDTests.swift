import Foundation
import Testing

@testable import ZeroMQ

/// `receive(property:)`: what the ZAP handler said about a CURVE peer reaches every message it sends.
@Suite("ZeroMQ message properties")
struct UserIDTests {
    @Test func theZAPUserIDArrivesWithEachMessage() throws {
        let context = try Context()
        let zap = try context.socket(.rep)
        try zap.bind("inproc://zeromq.zap.01")
        let server = try Curve.generateKeyPair(), client = try Curve.generateKeyPair()
        let router = try context.socket(.router)
        try router.set(.zapDomain("test"))
        try router.set(.curveServer(true))
        try router.set(.curveSecretKey(try #require(Curve.decode(server.secretKey))))
        try router.bind("tcp://127.0.0.1:*")
        let dealer = try context.socket(.dealer)
        try dealer.set(.curveServerKey(try #require(Curve.decode(server.publicKey))))
        try dealer.set(.curvePublicKey(try #require(Curve.decode(client.publicKey))))
        try dealer.set(.curveSecretKey(try #require(Curve.decode(client.secretKey))))
        try dealer.connect(try router.lastEndpoint())
        try dealer.send([Array("one".utf8)])
        try dealer.send([Array("two".utf8)])
        var received: [(frames: [[UInt8]], property: String?)] = []
        let deadline = Date().addingTimeInterval(10)
        while received.count < 2, Date() < deadline {
            let ready = try Poller.poll(
                [.socket(zap, .readable), .socket(router, .readable)], timeoutMilliseconds: 100)
            if ready[0].contains(.readable), let request = try zap.receive(dontWait: true) {
                // ZAP 1.0: version, request id, ..., mechanism, client key; answer 200 with a user id.
                #expect(request.count >= 7 && request[6] == Curve.decode(client.publicKey))
                try zap.send([
                    Array("1.0".utf8), request[1], Array("200".utf8), Array("OK".utf8),
                    Array("gateway:lan".utf8), [],
                ])
            }
            if ready[1].contains(.readable), let message = try router.receive(dontWait: true, property: "User-Id") {
                received.append(message)
            }
        }
        #expect(received.map { $0.frames.last ?? [] } == [Array("one".utf8), Array("two".utf8)])
        #expect(received.map(\.property) == ["gateway:lan", "gateway:lan"])
        // Without ZAP (inproc, no mechanism) there is no user id: nil, not an empty string.
        let plain = try context.socket(.router)
        try plain.bind("inproc://no-zap")
        let peer = try context.socket(.dealer)
        try peer.connect("inproc://no-zap")
        try peer.send([Array("x".utf8)])
        _ = try Poller.poll([.socket(plain, .readable)], timeoutMilliseconds: 5_000)
        #expect(try plain.receive(property: "User-Id")?.property == nil)
        for socket in [dealer, router, zap, peer, plain] { socket.close() }
    }
}
