import Foundation
import StowageRuntime
import Testing
import ZeroMQ

@Suite("CURVE keys and ZAP policy")
struct CurveTests {
    func tempDir() -> URL {
        let dir = URL(fileURLWithPath: "/tmp/stw-curve-\(UInt32.random(in: 0...UInt32.max))")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func keyFilesRoundTripWithSafeModes() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pair = try CurveKeyPair.generate()
        let (key, pub) = try pair.write(directory: dir, name: "worker-a")
        #expect(try CurveKeyPair.load(key.path) == pair)
        let mode = try FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(AllowList(path: pub.path).allows(pair.publicKey))
        #expect(AllowList(path: dir.path).keys() == [pair.publicKey], "a directory of .pub files")
        #expect(throws: RuntimeError.self) { _ = try pair.write(directory: dir, name: "worker-a") }
        #expect(throws: RuntimeError.self) { _ = try pair.write(directory: dir, name: "../escape") }
        // A key file whose halves do not belong together is refused.
        let other = try CurveKeyPair.generate()
        let forged = dir.appendingPathComponent("forged.key")
        try "public = \(other.publicKey)\nsecret = \(pair.secretKey)\n".write(
            to: forged, atomically: true, encoding: .utf8)
        #expect(throws: RuntimeError.self) { _ = try CurveKeyPair.load(forged.path) }
        #expect(
            !AllowList(path: dir.appendingPathComponent("missing").path).allows(pair.publicKey), "no list allows nobody"
        )
    }

    @Test func clientsNeedKeysForTCPOnly() throws {
        #expect(try CurveClientKeys.resolve(endpoint: "ipc:///tmp/x.ipc", keyFile: nil, serverKey: nil) == nil)
        #expect(throws: RuntimeError.self) {
            _ = try CurveClientKeys.resolve(endpoint: "tcp://h:1", keyFile: nil, serverKey: nil)
        }
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (key, _) = try CurveKeyPair.generate().write(directory: dir, name: "c")
        #expect(throws: RuntimeError.self) {
            _ = try CurveClientKeys.resolve(endpoint: "tcp://h:1", keyFile: key.path, serverKey: "not-a-key")
        }
        let server = try CurveKeyPair.generate()
        #expect(
            try CurveClientKeys.resolve(endpoint: "tcp://h:1", keyFile: key.path, serverKey: server.publicKey)?
                .serverKey == server.publicKey)
    }

    @Test func zapAcceptsAllowedKeysOnly() throws {
        let allowed = try CurveKeyPair.generate(), stranger = try CurveKeyPair.generate()
        func request(_ mechanism: String, _ key: String?) -> [[UInt8]] {
            [
                Array("1.0".utf8), Array("7".utf8), Array("stowage".utf8), Array("10.0.0.2".utf8), [],
                Array(mechanism.utf8),
            ]
                + (key.map { [Curve.decode($0)!] } ?? [])
        }
        let allows = { (k: String) in k == allowed.publicKey }
        let ok = ZAPPolicy.answer(request("CURVE", allowed.publicKey), allows: allows)
        #expect(ok.accepted && ok.reply[2] == Array("200".utf8) && ok.reply[1] == Array("7".utf8))
        let no = ZAPPolicy.answer(request("CURVE", stranger.publicKey), allows: allows)
        #expect(
            !no.accepted && no.reply[2] == Array("400".utf8) && no.refusedKey == stranger.publicKey
                && no.address == "10.0.0.2")
        #expect(!ZAPPolicy.answer(request("PLAIN", nil), allows: allows).accepted)
        #expect(
            ZAPPolicy.answer([[1, 2]], allows: allows).reply[2] == Array("500".utf8),
            "malformed requests are answered, not fatal")
        #expect(ZAPPolicy.answer(request("CURVE", nil), allows: allows).reply[2] == Array("400".utf8))
    }
}
