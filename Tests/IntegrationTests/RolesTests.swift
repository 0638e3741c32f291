import Crypto
import Foundation
import StowageProtocol
import StowageTestSupport
import Testing

/// Roles of CURVE keys on the scheduler's tcp endpoint (#29): a worker's key sends worker messages only, the
/// gateway's reads titles and serves plays, an operator's does everything; and signed URLs keyed by what the
/// store holds alone (the scheme before #29) are refused.
@Suite("Key roles", .serialized)
struct RolesTests {
    @Test func eachKeyMayAskOnlyWhatItsRoleAllows() throws {
        let h = try Harness(name: "roles")
        try h.makeSample(seconds: 6)
        try h.startOrigin()
        let endpoint = "tcp://127.0.0.1:\(try Harness.freePort())"
        #expect(try h.stowctl(["keys", "generate", "scheduler"]).0 == 0)
        let worker = try h.curveClient("dl-1", role: "worker", endpoint: endpoint)
        let gateway = try h.curveClient("lan-gw", role: "gateway", endpoint: endpoint)
        let admin = try h.curveClient("alice", role: "operator", endpoint: endpoint)
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
        try expectBundlesAndCataloguesAreOperatorsOnly(h, token: token, refused: [gateway, worker])

        // The gateway's key reads titles; an operator's adds the device.
        #expect(try h.stowctl(["status", token, "--json"] + gateway).0 == 0)
        let (addedByAdmin, secretOut) = try h.stowctl(["devices", "add", "tv"] + admin)
        #expect(addedByAdmin == 0, "\(secretOut)")
        let secret = String(try #require(secretOut.split(separator: "\n").last))
        let log = h.log("scheduler")
        #expect(log.contains("refused a request its key's role does not allow"))
        #expect(log.contains("worker:dl-1") && log.contains("gateway:lan-gw"), "the refusals name the keys")

        // The gateway with a gateway's key serves the title to the device.
        let base = try h.startGateway(address: "127.0.0.1", extra: gateway)
        let path = "/titles/\(token)/master.m3u8"
        #expect(try h.httpStatus(base + path, headers: ["Authorization: Bearer \(secret)"]) == 200)

        // Signed URLs: the scheduler's own plays; one keyed with the stored hash (the scheme before #29, what a
        // copy of stowage.sqlite could compute) is refused.
        let (signedCode, signed) = try h.stowctl(["devices", "sign", "tv", path, "--expires", "1h"] + admin)
        #expect(signedCode == 0, "\(signed)")
        let signedURL = signed.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signedURL.hasPrefix(base + path), "the whole URL: \(signedURL)")
        #expect(try h.httpStatus(signedURL) == 200)
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        let storedHash = Data(SHA256.hash(data: Data(secret.utf8)))
        let forged = Hex.encode(
            HMAC<SHA256>.authenticationCode(
                for: Data(DeviceSignature.message(path: path, expires: Double(expires)).utf8),
                using: SymmetricKey(data: storedHash)
            ))
        #expect(try h.httpStatus(base + path + "?dev=tv&exp=\(expires)&sig=\(forged)") == 401)
        #expect(h.isRunning("scheduler") && h.isRunning("gateway"))
        // The catalogue the other keys could not apply is a good one: an operator's key applies it.
        let (applied, appliedOut) = try h.stowctl(["catalog", "apply", catalogue(h).path] + admin)
        #expect(applied == 0, "\(appliedOut)")
        #expect(try catalogueVersion(h) == 1)
    }

    /// Neither the gateway's key (it faces the venue's devices) nor a worker's may export a title (a bundle can
    /// carry its content keys to another box), import a bundle or apply a catalogue (both change the library):
    /// each is answered `forbidden` naming the key, and nothing is written, taken in or applied. An operator's
    /// export of the same title succeeds, so the bundle the others could not import is a real one.
    func expectBundlesAndCataloguesAreOperatorsOnly(_ h: Harness, token: String, refused keys: [[String]]) throws {
        let denied = h.root.appendingPathComponent("denied-bundle")
        let bundle = h.root.appendingPathComponent("bundle")
        let catalogue = try catalogue(h)
        #expect(try h.stowctl(["export", token, bundle.path]).0 == 0, "an operator (ipc) exports the title")
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("bundle.json").path))
        for key in keys {
            let name = try #require(key.firstIndex(of: "--curve-key").map { key[$0 + 1] })
            for (operation, arguments) in [
                ("exportTitle", ["export", token, denied.path]),
                ("importBundle", ["import", bundle.path, "--trust-any"]),
                ("catalogApply", ["catalog", "apply", catalogue.path]),
            ] {
                // Refused itself, by the operation's name (the gateway's) or as a request at all (a worker's): not
                // a later step such as following the job.
                let (code, _, error) = try h.stowctlStreams(arguments + key)
                #expect(
                    code == 1 && error.contains("forbidden")
                        && (error.contains("may not ask for \(operation)") || error.contains("may not send REQUEST")),
                    "\(name) asking for \(operation): \(error)")
            }
        }
        let written = (try? FileManager.default.contentsOfDirectory(atPath: denied.path)) ?? []
        #expect(written.isEmpty, "no bundle was written: \(written)")
        #expect(try h.stowctl(["list", "--json"]).1.components(separatedBy: "\"token\"").count == 2, "one title")
        #expect(try catalogueVersion(h) == nil, "no catalogue was applied")
    }

    /// An unsigned empty catalogue (the scheduler has no `--catalog-key`), version 1.
    func catalogue(_ h: Harness) throws -> URL {
        let file = h.root.appendingPathComponent("catalog.json")
        try Data("{\"version\": 1, \"titles\": []}".utf8).write(to: file)
        return file
    }

    func catalogueVersion(_ h: Harness) throws -> Int? {
        let (code, out) = try h.stowctl(["catalog", "status", "--json"])
        guard code == 0 else { throw HarnessError("catalog status exited \(code): \(out)") }
        return try JSONDecoder().decode(CatalogReport.self, from: Data(out.utf8)).version
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
