import Crypto
import Foundation
import StowageProtocol
import Testing

/// Roles of CURVE keys on the scheduler's tcp endpoint (#29): a worker's key sends worker messages only, the
/// gateway's reads titles and serves plays, an operator's does everything; and signed URLs keyed by what the
/// store holds alone (the scheme before #29) are refused.
@Suite("Key roles", .serialized)
struct RolesTests {
    /// A key pair for `name` in the test root, its .pub in `keys/allowed/<role>/`; the arguments a process needs
    /// to connect with it.
    func key(_ h: Harness, _ name: String, role: String, endpoint: String) throws -> [String] {
        let dir = h.root.appendingPathComponent("keys-\(name)")
        let (code, out) = try h.stowctl(["keys", "generate", name, "--dir", dir.path])
        #expect(code == 0, "\(out)")
        let allowed = h.home.appendingPathComponent("keys/allowed/\(role)")
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: dir.appendingPathComponent("\(name).pub"), to: allowed.appendingPathComponent("\(name).pub"))
        return [
            "--scheduler", endpoint, "--curve-key", dir.appendingPathComponent("\(name).key").path,
            "--curve-server-key", h.home.appendingPathComponent("keys/scheduler.pub").path,
        ]
    }

    func curl(_ url: String, headers: [String] = [], in h: Harness) throws -> Int {
        let hs = headers.map { "-H '\($0)'" }.joined(separator: " ")
        let (_, code) = try TestMedia.shOutput("curl -s -o /dev/null -w '%{http_code}' \(hs) '\(url)'", in: h.root)
        return Int(code.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @Test func eachKeyMayAskOnlyWhatItsRoleAllows() throws {
        let h = try Harness(name: "roles")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        let endpoint = "tcp://127.0.0.1:\(try Harness.freePort())"
        #expect(try h.stowctl(["keys", "generate", "scheduler"]).0 == 0)
        let worker = try key(h, "dl-1", role: "worker", endpoint: endpoint)
        let gateway = try key(h, "lan-gw", role: "gateway", endpoint: endpoint)
        let admin = try key(h, "alice", role: "operator", endpoint: endpoint)
        try h.startScheduler(["--bind", endpoint])
        try h.startWorker("license")
        try h.startWorker("integrity")
        // The only download worker connects over tcp with a worker's key: it still downloads.
        try h.spawn("download", "stowage-download-worker", worker)
        try h.waitUntil(timeout: 30, "three workers registered") { (try? h.workers().count) == 3 }
        let (submitted, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--wait"] + admin)
        #expect(submitted == 0, "an operator's key submits; the worker's key downloads: \(out)")
        let token = String(try #require(out.split(separator: "\n").last))
        #expect(try h.status(token).state == .completed)

        // A worker's key may not delete a title; the gateway's may not add a device; both are told why.
        let (deleted, _, deleteError) = try h.stowctlStreams(["delete", token] + worker)
        #expect(deleted == 1 && deleteError.contains("forbidden"), "\(deleteError)")
        #expect(try h.status(token).state == .completed, "the title is still there")
        let (added, _, addError) = try h.stowctlStreams(["devices", "add", "tv"] + gateway)
        #expect(added == 1 && addError.contains("forbidden") && addError.contains("lan-gw"), "\(addError)")
        #expect(try h.stowctl(["devices", "list", "--json"]).1.contains("tv") == false, "no device was added")
        for refused in [["limits", "--titles", "5"], ["cancel", token], ["submit", h.originURL + "master.m3u8"]] {
            let (code, _, error) = try h.stowctlStreams(refused + gateway)
            #expect(code == 1 && error.contains("forbidden"), "\(refused): \(error)")
        }
        // The gateway's key reads titles; an operator's adds the device.
        #expect(try h.stowctl(["status", token, "--json"] + gateway).0 == 0)
        let (addedByAdmin, secretOut) = try h.stowctl(["devices", "add", "tv"] + admin)
        #expect(addedByAdmin == 0, "\(secretOut)")
        let secret = String(try #require(secretOut.split(separator: "\n").last))
        let log = h.log("scheduler")
        #expect(log.contains("refused a request its key's role does not allow"))
        #expect(log.contains("worker:dl-1") && log.contains("gateway:lan-gw"), "the refusals name the keys")

        // The gateway with a gateway's key serves the title to the device.
        let port = try Harness.freePort()
        let gatewayOut = h.root.appendingPathComponent("gateway.out")
        let secretFile = h.root.appendingPathComponent("admin.secret")
        try "admin-secret-for-tests\n".write(to: secretFile, atomically: true, encoding: .utf8)
        try h.spawn(
            "gateway", "stowage-gateway",
            ["--listen", "127.0.0.1:\(port)", "--admin-secret", secretFile.path] + gateway, stdout: gatewayOut)
        try h.waitUntil(timeout: 30, "the gateway to listen") {
            ((try? String(contentsOf: gatewayOut, encoding: .utf8)) ?? "").contains("listening")
        }
        let base = "http://127.0.0.1:\(port)"
        let path = "/titles/\(token)/master.m3u8"
        #expect(try curl(base + path, headers: ["Authorization: Bearer \(secret)"], in: h) == 200)

        // Signed URLs: the scheduler's own plays; one keyed with the stored hash (the scheme before #29, what a
        // copy of stowage.sqlite could compute) is refused.
        let (signedCode, signed) = try h.stowctl(["devices", "sign", "tv", path, "--expires", "1h"] + admin)
        #expect(signedCode == 0, "\(signed)")
        #expect(try curl(base + signed.trimmingCharacters(in: .whitespacesAndNewlines), in: h) == 200)
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        let storedHash = Data(SHA256.hash(data: Data(secret.utf8)))
        let forged = HMAC<SHA256>.authenticationCode(
            for: Data(DeviceSignature.message(path: path, expires: Double(expires)).utf8),
            using: SymmetricKey(data: storedHash)
        ).map { String(format: "%02x", $0) }.joined()
        #expect(try curl(base + path + "?dev=tv&exp=\(expires)&sig=\(forged)", in: h) == 401)
        #expect(h.isRunning("scheduler") && h.isRunning("gateway"))
    }

    /// The scheduler holds the master key next to workers that run as the same user (systemd units): it is not
    /// dumpable, so its /proc files belong to root and a process of its user cannot read its memory. Seen as
    /// another user (nobody), against a process of that user that is dumpable.
    @Test func theSchedulerKeepsItsMemoryFromItsOwnUser() throws {
        let h = try Harness(name: "undumpable")
        try TestMedia.sh("chmod 755 \(h.root.path) && chown -R 65534:65534 \(h.home.path)", in: h.root)
        func asNobody(_ arguments: [String]) throws -> Process {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments
            var env = Harness.cleanEnvironment()
            env["STOWAGE_HOME"] = h.home.path
            p.environment = env
            p.standardError = FileHandle.nullDevice
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            return p
        }
        func owner(_ pid: Int32) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: "/proc/\(pid)/mem"))?[.ownerAccountID] as? Int
        }
        let scheduler = try asNobody([h.bin.appendingPathComponent("stowage-scheduler").path])
        let plain = try asNobody(["/bin/sleep", "60"])
        defer {
            for p in [scheduler, plain] where p.isRunning { p.terminate() }
        }
        try h.waitUntil(timeout: 30, "the scheduler to open its store") {
            FileManager.default.fileExists(atPath: h.home.appendingPathComponent("run/scheduler.ipc").path)
        }
        #expect(owner(plain.processIdentifier) == 65534, "a dumpable process's /proc files are its user's")
        #expect(owner(scheduler.processIdentifier) == 0, "the scheduler's are root's: its user cannot read them")
        #expect(scheduler.isRunning)
    }
}
