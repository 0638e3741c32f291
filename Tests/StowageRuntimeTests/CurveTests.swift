import Foundation
import StowageProtocol
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
        let allows = { (k: String) in k == allowed.publicKey ? Caller(role: .gateway, name: "lan") : nil }
        let ok = ZAPPolicy.answer(request("CURVE", allowed.publicKey), caller: allows)
        #expect(ok.accepted && ok.reply[2] == Array("200".utf8) && ok.reply[1] == Array("7".utf8))
        #expect(ok.reply[4] == Array("gateway:lan".utf8), "the user id names the key's role and name")
        #expect(ZAPPolicy.answer(request("NULL", nil), caller: allows).reply[4] == Array("local".utf8))
        let no = ZAPPolicy.answer(request("CURVE", stranger.publicKey), caller: allows)
        #expect(
            !no.accepted && no.reply[2] == Array("400".utf8) && no.refusedKey == stranger.publicKey
                && no.address == "10.0.0.2")
        #expect(!ZAPPolicy.answer(request("PLAIN", nil), caller: allows).accepted)
        #expect(
            ZAPPolicy.answer([[1, 2]], caller: allows).reply[2] == Array("500".utf8),
            "malformed requests are answered, not fatal")
        #expect(ZAPPolicy.answer(request("CURVE", nil), caller: allows).reply[2] == Array("400".utf8))
    }

    @Test func allowListFoldersGiveRoles() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let worker = try CurveKeyPair.generate(), lan = try CurveKeyPair.generate()
        let admin = try CurveKeyPair.generate(), old = try CurveKeyPair.generate()
        let both = try CurveKeyPair.generate()
        _ = try worker.write(directory: dir.appendingPathComponent("worker"), name: "dl-1")
        _ = try lan.write(directory: dir.appendingPathComponent("gateway"), name: "gw")
        _ = try admin.write(directory: dir.appendingPathComponent("operator"), name: "alice")
        _ = try old.write(directory: dir, name: "legacy")
        _ = try both.write(directory: dir.appendingPathComponent("worker"), name: "twice")
        try "\(both.publicKey) twice\n".write(
            to: dir.appendingPathComponent("operator/twice.pub"), atomically: true, encoding: .utf8)
        let list = AllowList(path: dir.path)
        #expect(list.caller(for: worker.publicKey) == Caller(role: .worker, name: "dl-1"))
        #expect(list.caller(for: lan.publicKey) == Caller(role: .gateway, name: "gw"))
        #expect(list.caller(for: admin.publicKey) == Caller(role: .operator, name: "alice"))
        #expect(list.caller(for: old.publicKey) == Caller(role: .operator, name: "legacy"), "the flat layout")
        #expect(list.caller(for: both.publicKey)?.role == .worker, "a key in two folders gets the narrower role")
        #expect(list.caller(for: try CurveKeyPair.generate().publicKey) == nil)
        #expect(list.roleCounts() == "worker=2 gateway=1 operator=2")
        // A single file: operators, named by the word after the key.
        let file = dir.appendingPathComponent("list.txt")
        try "# keys\n\(lan.publicKey) tablet\n\(admin.publicKey)\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(AllowList(path: file.path).caller(for: lan.publicKey) == Caller(role: .operator, name: "tablet"))
        #expect(AllowList(path: file.path).caller(for: admin.publicKey)?.name == "key-\(admin.publicKey.prefix(8))")
    }
}
