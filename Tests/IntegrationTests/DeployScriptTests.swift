import Foundation
import StowageTestSupport
import Testing

/// `Deploy/start.sh` and `stop.sh` as an operator runs them: a process is identified by its pid file and its
/// executable, so a dead, zombie or reused pid is restarted and never signalled.
@Suite("Deploy scripts", .serialized)
struct DeployScriptTests {
    static let repository = DeployScript.repository

    func script(_ h: Harness, _ name: String, _ arguments: [String] = []) throws -> (status: Int32, stderr: String) {
        let r = try DeployScript.run(h, name, arguments)
        return (r.status, r.stderr)
    }

    func pid(_ h: Harness, _ name: String) -> Int32? { DeployScript.pid(h, name) }

    func alive(_ pid: Int32) -> Bool { DeployScript.alive(pid) }

    @Test func aDeadZombieOrReusedPidIsRestartedAndTheOthersAreLeftRunning() throws {
        let h = try Harness(name: "deploy")
        let first = try script(h, "start.sh", ["--workers", "1"])
        #expect(first.status == 0, "\(first.stderr)")
        let names = ["scheduler", "license-worker-1", "download-worker-1", "integrity-worker-1"]
        let before = Dictionary(uniqueKeysWithValues: names.map { ($0, pid(h, $0)) })
        #expect(before.values.allSatisfy { $0.map(alive) == true }, "\(before)")
        defer {  // whatever happens, nothing started here outlives the test
            for p in before.values.compactMap({ $0 }) { kill(p, SIGKILL) }
            for name in names { if let p = pid(h, name) { kill(p, SIGKILL) } }
        }

        // The download worker dies (it stays a zombie: nobody reaps it here); a sleep takes the license
        // worker's pid file, as a reused pid would.
        let download = try #require(before["download-worker-1"] ?? nil)
        kill(download, SIGKILL)
        let impostor = Process()
        impostor.executableURL = URL(fileURLWithPath: "/bin/sleep")
        impostor.arguments = ["60"]
        try impostor.run()
        defer { impostor.terminate() }
        let license = try #require(before["license-worker-1"] ?? nil)
        try "\(impostor.processIdentifier)\n".write(
            to: h.home.appendingPathComponent("run/license-worker-1.pid"),
            atomically: true, encoding: .utf8)

        let again = try script(h, "start.sh", ["--workers", "1"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("download-worker-1: stale pid file"), "\(again.stderr)")
        #expect(
            again.stderr.contains("runs /usr/bin/sleep") || again.stderr.contains("runs /bin/sleep"), "\(again.stderr)")
        #expect(again.stderr.contains("scheduler already running"))
        #expect(pid(h, "scheduler") == before["scheduler"] ?? nil, "the scheduler was left running")
        #expect(pid(h, "integrity-worker-1") == before["integrity-worker-1"] ?? nil)
        let newDownload = try #require(pid(h, "download-worker-1"))
        #expect(newDownload != download && alive(newDownload))
        let newLicense = try #require(pid(h, "license-worker-1"))
        #expect(newLicense != impostor.processIdentifier && alive(newLicense))
        #expect(impostor.isRunning, "start.sh never touches a program that is not ours")
        let workers = try h.workers()
        #expect(workers.filter(\.alive).contains { $0.pid == newDownload })

        // stop.sh stops ours only: the impostor is left alone, the old license worker too (its pid file was lost).
        try "\(impostor.processIdentifier)\n".write(
            to: h.home.appendingPathComponent("run/gateway.pid"),
            atomically: true, encoding: .utf8)
        let stop = try script(h, "stop.sh")
        #expect(stop.status == 0, "\(stop.stderr)")
        for name in names { #expect(pid(h, name).map(alive) != true, "\(name) stopped") }
        #expect(impostor.isRunning)
    }

    @Test func startWithAGatewayServesItAndStopStopsIt() throws {
        let h = try Harness(name: "deploy-gw")
        let port = try Harness.freePort()
        let started = try script(h, "start.sh", ["--workers", "1", "--gateway", "127.0.0.1:\(port)"])
        #expect(started.status == 0, "\(started.stderr)")
        let gateway = try #require(pid(h, "gateway"), "a pid file for the gateway")
        #expect(alive(gateway))
        let (status, _) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:\(port)/api/titles", in: h.root)
        #expect(status == 0)
        let (_, code) = try TestMedia.shOutput(
            "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:\(port)/api/titles", in: h.root)
        #expect(code == "401", "the gateway answers, and asks for a credential")
        let bad = try script(h, "start.sh", ["--gateway", "nonsense"])
        #expect(bad.status == 2 && bad.stderr.contains("HOST:PORT"))
        let stopped = try script(h, "stop.sh")
        #expect(stopped.status == 0, "\(stopped.stderr)")
        try h.waitUntil(timeout: 20, "the gateway to stop") { !alive(gateway) }
    }

    /// The systemd units' hardening, scored by `systemd-analyze security` through `Deploy/security-check.sh`; a
    /// weakened copy fails the check; the processes that do not need them see neither master.key nor the store.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
            "systemd-analyze is not installed (apt-get install systemd)"))
    func theUnitsAreHardenedAndTheSecurityCheckSaysSo() throws {
        let h = try Harness(name: "security-check")
        func check(_ units: [String]) throws -> (Int32, String) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/bash")
            p.arguments = [Self.repository.appendingPathComponent("Deploy/security-check.sh").path] + units
            p.environment = Harness.cleanEnvironment()
            let r = try runCapturingStreams(p)
            return (r.status, r.stdout + r.stderr)
        }
        let unitDirectory = Self.repository.appendingPathComponent("Deploy/systemd")
        let units = try FileManager.default.contentsOfDirectory(atPath: unitDirectory.path)
            .filter { $0.hasSuffix(".service") }.sorted()
        #expect(units.count == 5)
        let (status, out) = try check([])
        #expect(status == 0, "\(out)")
        for unit in units { #expect(out.contains("\(unit): exposure "), "each unit's exposure is printed: \(out)") }
        for unit in units {
            let text = try String(contentsOf: unitDirectory.appendingPathComponent(unit), encoding: .utf8)
            let lines = Set(text.split(separator: "\n").map(String.init))
            for required in [
                "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateDevices=yes", "MemoryDenyWriteExecute=yes",
                "CapabilityBoundingSet=", "SystemCallFilter=@system-service", "UMask=0077", "ProtectProc=invisible",
            ] {
                #expect(lines.contains(required), "\(unit) has \(required)")
            }
            if unit == "stowage-scheduler.service" {
                #expect(lines.contains("ReadWritePaths=/var/lib/stowage"))
            } else {
                // The home (master.key, the store, run/) is an empty tmpfs; titles/ alone is bound in.
                #expect(lines.contains("TemporaryFileSystem=/var/lib/stowage:ro"), "\(unit) hides the home")
                #expect(!lines.contains { $0.hasPrefix("ReadWritePaths=") }, "\(unit)")
            }
            if unit.hasPrefix("stowage-gateway") || unit.hasPrefix("stowage-integrity") {
                #expect(lines.contains("BindReadOnlyPaths=/var/lib/stowage/titles"), "\(unit) reads titles only")
            }
        }
        // The check fails a unit that drops its system-call filter and its protections.
        let scheduler = try String(
            contentsOf: unitDirectory.appendingPathComponent("stowage-scheduler.service"), encoding: .utf8)
        let weakened = scheduler.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("SystemCall") && !$0.hasPrefix("Protect") && !$0.hasPrefix("Private") }
            .joined(separator: "\n")
        let weak = h.root.appendingPathComponent("weak.service")
        try weakened.write(to: weak, atomically: true, encoding: .utf8)
        let (weakStatus, weakOut) = try check([weak.path])
        #expect(weakStatus == 1 && weakOut.contains("TOO EXPOSED"), "\(weakOut)")
        // And one whose option is misspelt (systemd would ignore it, and the protection with it).
        let typo = h.root.appendingPathComponent("typo.service")
        try scheduler.replacingOccurrences(of: "ProtectClock=yes", with: "ProtectClocks=yes").write(
            to: typo, atomically: true, encoding: .utf8)
        let (typoStatus, typoOut) = try check([typo.path])
        #expect(typoStatus == 1 && typoOut.contains("ProtectClocks"), "\(typoOut)")
        // Env files (the admin secret, maybe the master key) are installed readable by root alone.
        let install = try String(
            contentsOf: Self.repository.appendingPathComponent("Deploy/install-systemd.sh"), encoding: .utf8)
        #expect(install.contains("install -m 0600 \"Deploy/systemd/$env.env\""))
        #expect(!install.contains("-m 0644 Deploy/systemd/stowage.env"))
    }

    /// Whether this kernel refuses writable-and-executable memory when asked (PR_SET_MDWE, Linux 6.3): what the
    /// units' MemoryDenyWriteExecute= does with seccomp.
    static func writeXorExecuteAvailable() -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", "import ctypes, sys; sys.exit(ctypes.CDLL(None).prctl(65, 1, 0, 0, 0))"]
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// The units set MemoryDenyWriteExecute=yes: the scheduler, the workers and the gateway download and serve a
    /// title with W^X enforced by the kernel (PR_SET_MDWE, inherited across exec), as under systemd.
    @Test(.enabled(if: writeXorExecuteAvailable(), "no python3 or a kernel without PR_SET_MDWE (Linux 6.3)"))
    func everyProcessRunsWithMemoryDenyWriteExecute() throws {
        let h = try Harness(name: "mdwe")
        try h.makeSample(seconds: 4)
        try h.startOrigin()
        var started: [Process] = []
        defer { for p in started where p.isRunning { p.terminate() } }
        let wrapper =
            "import ctypes, os, sys\nassert ctypes.CDLL(None).prctl(65, 1, 0, 0, 0) == 0\n"
            + "os.execv(sys.argv[1], sys.argv[1:])"
        func start(_ name: String, _ executable: String, _ arguments: [String] = []) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            p.arguments = ["-c", wrapper, h.bin.appendingPathComponent(executable).path] + arguments
            var env = Harness.cleanEnvironment()
            env["STOWAGE_HOME"] = h.home.path
            p.environment = env
            let log = h.root.appendingPathComponent("\(name).log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            p.standardError = try FileHandle(forWritingTo: log)
            p.standardOutput = p.standardError
            try p.run()
            started.append(p)
        }
        try start("scheduler", "stowage-scheduler")
        for kind in ["license", "download", "integrity"] { try start(kind, "stowage-\(kind)-worker") }
        try h.waitUntil(timeout: 30, "three workers registered") { (try? h.workers().count) == 3 }
        let (code, out) = try h.stowctl(["submit", h.originURL + "master.m3u8", "--wait"])
        #expect(code == 0, "\(out)")
        let token = String(try #require(out.split(separator: "\n").last))
        let secret = try h.addDevice("tv")
        let port = try Harness.freePort()
        let admin = h.root.appendingPathComponent("admin.secret")
        try "admin-secret-for-tests\n".write(to: admin, atomically: true, encoding: .utf8)
        try start("gateway", "stowage-gateway", ["--listen", "127.0.0.1:\(port)", "--admin-secret", admin.path])
        try h.waitUntil(timeout: 30, "the gateway to listen") { h.log("gateway").contains("listening") }
        let status = try h.httpStatus(
            "http://127.0.0.1:\(port)/titles/\(token)/master.m3u8", headers: ["Authorization: Bearer \(secret)"])
        #expect(status == 200)
        let running = started.filter(\.isRunning).count
        #expect(running == started.count, "no process died of W^X")
    }
}
