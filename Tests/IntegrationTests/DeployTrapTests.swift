import Foundation
import StowageTestSupport
import Testing

/// Issue #47 item 4, the Deploy side of "a first hour without traps": `Deploy/start.sh` notices a process that
/// exits while starting, shows why and stops what it started; names what already runs and how to restart it;
/// runs without `swift`; gives the gateway an admin secret. Real scripts, real processes.
@Suite("Deploy/start.sh without traps", .serialized)
struct DeployTrapTests {
    /// The scheduler refuses its options at start (`STOWAGE_QUOTA=lots`): start.sh says so from the scheduler's
    /// own log within seconds, stops the workers it started and exits 1 (it used to wait 17 minutes and leave the
    /// workers running).
    @Test func aSchedulerThatDiesAtStartIsShownAndWhatStartedIsStopped() throws {
        let h = try Harness(name: "trap-sched")
        defer { DeployScript.killAll(h) }
        let r = try DeployScript.run(h, "start.sh", ["--workers", "1"], environment: ["STOWAGE_QUOTA": "lots"])
        print("[measure] start.sh with a scheduler that dies at start: exit \(r.status) after \(r.seconds) s")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.seconds < 10, "seen within 2 s of the death, and the workers stopped: took \(r.seconds) s")
        #expect(r.stderr.contains("scheduler (pid"), "\(r.stderr)")
        #expect(r.stderr.contains("exited while starting"), "\(r.stderr)")
        #expect(r.stderr.contains("STOWAGE_QUOTA"), "the scheduler's own error, from its log: \(r.stderr)")
        #expect(DeployScript.processesOfHome(h).isEmpty, "left running: \(DeployScript.processesOfHome(h))")
        for name in ["scheduler", "license-worker-1", "download-worker-1", "integrity-worker-1"] {
            #expect(DeployScript.pid(h, name) == nil, "\(name)'s pid file is removed")
        }
    }

    /// A gateway whose port is taken: the error names the address, and the scheduler and workers this start began
    /// are stopped; a pipeline that ran before the failed start is left running.
    @Test func aGatewayThatCannotListenNamesTheAddressAndStopsOnlyWhatThisStartBegan() throws {
        let h = try Harness(name: "trap-gw")
        defer { DeployScript.killAll(h) }
        let held = try HeldPort()
        let fresh = try DeployScript.run(h, "start.sh", ["--gateway", "127.0.0.1:\(held.port)"])
        print("[measure] start.sh with a gateway that cannot bind: exit \(fresh.status) after \(fresh.seconds) s")
        #expect(fresh.status == 1, "\(fresh.stderr)")
        #expect(fresh.stderr.contains("127.0.0.1:\(held.port)"), "the address is named: \(fresh.stderr)")
        #expect(fresh.stderr.contains("already in use"), "\(fresh.stderr)")
        #expect(fresh.seconds < 10, "took \(fresh.seconds) s")
        #expect(DeployScript.processesOfHome(h).isEmpty, "left running: \(DeployScript.processesOfHome(h))")

        // Started before: a failed start with a gateway leaves that pipeline alone.
        let first = try DeployScript.run(h, "start.sh")
        #expect(first.status == 0, "\(first.stderr)")
        let before = DeployScript.processesOfHome(h)
        #expect(before.count == 4, "\(before)")
        let again = try DeployScript.run(h, "start.sh", ["--gateway", "127.0.0.1:\(held.port)"])
        #expect(again.status == 1, "\(again.stderr)")
        #expect(again.stderr.contains("127.0.0.1:\(held.port)"), "\(again.stderr)")
        #expect(DeployScript.processesOfHome(h) == before, "what ran before still runs")
        #expect(try DeployScript.run(h, "stop.sh").status == 0)
    }

    /// A second start asking the gateway for another port says what runs, with which options, and how to
    /// restart; the running gateway keeps serving; the same options again are fine.
    @Test func aSecondStartWithOtherGatewayOptionsSaysWhatRunsAndHowToRestart() throws {
        let h = try Harness(name: "trap-again")
        defer { DeployScript.killAll(h) }
        let port = try Harness.freePort()
        let first = try DeployScript.run(h, "start.sh", ["--gateway", "127.0.0.1:\(port)"])
        #expect(first.status == 0, "\(first.stderr)")
        let gateway = try #require(DeployScript.pid(h, "gateway"))
        let other = try Harness.freePort()
        let second = try DeployScript.run(h, "start.sh", ["--gateway", "127.0.0.1:\(other)"])
        #expect(second.status == 1, "\(second.stderr)")
        #expect(second.stderr.contains("already running (pid \(gateway))"), "\(second.stderr)")
        #expect(second.stderr.contains("--listen 127.0.0.1:\(port)"), "the options it runs with: \(second.stderr)")
        #expect(
            second.stderr.contains("Deploy/stop.sh, then Deploy/start.sh --gateway 127.0.0.1:\(other)"),
            "how to restart with the new options: \(second.stderr)")
        #expect(DeployScript.pid(h, "gateway") == gateway && DeployScript.alive(gateway))
        #expect(try h.httpStatus("http://127.0.0.1:\(port)/api/titles") == 401, "the old gateway still serves")
        #expect(try h.httpStatus("http://127.0.0.1:\(other)/api/titles") == 0, "nothing listens on the new port")
        let same = try DeployScript.run(h, "start.sh", ["--gateway", "127.0.0.1:\(port)"])
        #expect(same.status == 0 && same.stderr.contains("gateway already running"), "\(same.stderr)")
        #expect(try DeployScript.run(h, "stop.sh").status == 0)
    }

    /// With no `swift` on PATH and no BIN, start.sh and stop.sh run the executables already built in .build/.
    @Test func startAndStopRunFromBuiltBinariesWithoutSwift() throws {
        let h = try Harness(name: "trap-noswift")
        defer { DeployScript.killAll(h) }
        let configuration = h.bin.lastPathComponent
        let built = DeployScript.repository.appendingPathComponent(".build/\(configuration)/stowage-scheduler")
        try #require(FileManager.default.isExecutableFile(atPath: built.path), "no build at \(built.path)")
        let path = "/usr/local/bin:/usr/bin:/bin"
        let found = path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/swift")
        }
        try #require(!found, "swift is in \(path): this test would prove nothing")
        let environment: [String: String?] = ["BIN": nil, "PATH": path, "STOWAGE_CONFIGURATION": configuration]
        let started = try DeployScript.run(h, "start.sh", [], environment: environment)
        #expect(started.status == 0, "\(started.stderr)")
        #expect(!started.stderr.contains("command not found"), "\(started.stderr)")
        #expect(try h.workers().filter(\.alive).count == 3)
        let stopped = try DeployScript.run(h, "stop.sh", [], environment: environment)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        try h.waitUntil(timeout: 20, "every process to stop") { DeployScript.processesOfHome(h).isEmpty }
    }

    /// `--admin-secret FILE` reaches the gateway: the admin logs in with it; a missing file is a usage error.
    @Test func adminSecretGivesTheGatewayItsAdmin() throws {
        let h = try Harness(name: "trap-admin")
        defer { DeployScript.killAll(h) }
        let secret = h.root.appendingPathComponent("admin.secret")
        try "the-admin-of-this-box\n".write(to: secret, atomically: true, encoding: .utf8)
        let port = try Harness.freePort()
        let missing = try DeployScript.run(
            h, "start.sh", ["--gateway", "127.0.0.1:\(port)", "--admin-secret", h.root.path + "/nothing"])
        #expect(missing.status == 2 && missing.stderr.contains("/nothing"), "\(missing.stderr)")
        #expect(DeployScript.processesOfHome(h).isEmpty, "a usage error starts nothing")
        let started = try DeployScript.run(
            h, "start.sh", ["--gateway", "127.0.0.1:\(port)", "--admin-secret", secret.path])
        #expect(started.status == 0, "\(started.stderr)")
        func login(_ secret: String) throws -> String {
            try TestMedia.shOutput(
                "curl -s -o /dev/null -w '%{http_code}' -d 'secret=\(secret)' http://127.0.0.1:\(port)/login",
                in: h.root
            ).1
        }
        #expect(try login("the-admin-of-this-box") == "303", "the admin secret logs in")
        #expect(try login("not-the-secret") != "303")
        #expect(try DeployScript.run(h, "stop.sh").status == 0)
    }
}
