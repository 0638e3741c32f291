import Foundation
import StowageProtocol

/// Starts the built executables as real processes in a private STOWAGE_HOME, with a real origin
/// serving real ffmpeg-made media, and cleans everything up at the end.
public final class Harness: @unchecked Sendable {
    public let root: URL
    public let home: URL
    public let media: URL
    public let bin: URL
    private var processes: [String: Process] = [:]
    public private(set) var originURL = ""
    /// Added to the environment of `stowctl` (``run(_:_:)``, ``stowctlStreams(_:)``): a farm's test sets
    /// `STOWAGE_SCHEDULER` to every endpoint, so ``status(_:)``, ``submit(_:_:)`` and the rest follow the leader.
    public var clientEnvironment: [String: String] = [:]
    /// The PostgreSQL server of a test's `store-url` (``storeQuery(_:separator:)``); nil: the tests' shared one.
    public var storeServer: TestPostgres?

    public init(name: String) throws {
        bin = Harness.binDirectory()
        root = URL(fileURLWithPath: "/tmp/stw-\(name)-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))")
        home = root.appendingPathComponent("home")
        media = root.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    deinit {
        for p in processes.values where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        // STOWAGE_TEST_KEEP=1 keeps homes, logs and media for a look after a failure.
        if ProcessInfo.processInfo.environment["STOWAGE_TEST_KEEP"] == nil {
            try? FileManager.default.removeItem(at: root)
        }
    }

    /// The build's bin directory: `STOWAGE_BIN` (set by Deploy/test.sh), else the directory of this test
    /// bundle, where SwiftPM puts the products of the same build (so `swift test -c release` runs release
    /// binaries), else `.build/debug` of this checkout.
    public static func binDirectory() -> URL {
        if let dir = ProcessInfo.processInfo.environment["STOWAGE_BIN"] { return URL(fileURLWithPath: dir) }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        if FileManager.default.isExecutableFile(atPath: bundle.appendingPathComponent("stowage-scheduler").path) {
            return bundle
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent(".build/debug")
    }

    /// Generates the sample title with `stowage-origin sample` (real ffmpeg).
    public func makeSample(seconds: Int) throws {
        let (status, out) = try run("stowage-origin", ["sample", media.path, "--seconds", "\(seconds)"])
        guard status == 0 else { throw HarnessError("sample generation exited \(status): \(out)") }
    }

    /// Starts the origin on a free port and waits for its "listening" line; its access log is `access.log`
    /// (``originLog()``).
    public func startOrigin(
        latencyMilliseconds: Int = 0, throttleBytesPerSecond: Int = 0, port: Int = 0, extra: [String] = []
    ) throws {
        let origin = try startOrigin(
            named: "origin", port: port,
            extra: ["--latency-ms", "\(latencyMilliseconds)", "--throttle-bps", "\(throttleBytesPerSecond)"] + extra,
            accessLog: root.appendingPathComponent("access.log"))
        originURL = origin.url
    }

    /// Starts another `stowage-origin serve` named `name` over `root` (default: the media folder) on `host` and
    /// `port` (default: 127.0.0.1 and a port the kernel picks), with its own access log (default
    /// `NAME-access.log`), and waits until it listens.
    @discardableResult
    public func startOrigin(
        named name: String, root folder: URL? = nil, host: String? = nil, port: Int = 0, extra: [String] = [],
        accessLog: URL? = nil
    ) throws -> StartedOrigin {
        let out = root.appendingPathComponent("\(name).out")
        let log = accessLog ?? root.appendingPathComponent("\(name)-access.log")
        let arguments =
            ["serve", "--root", (folder ?? media).path, "--port", "\(port)"] + (host.map { ["--host", $0] } ?? [])
            + extra + ["--access-log", log.path]
        try spawn(name, "stowage-origin", arguments, stdout: out)
        var url = ""
        try waitUntil(timeout: 20, "the origin \(name) to listen") {
            let line = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            guard line.contains("listening") else { return false }
            url = String(line.split(separator: " ")[1].trimmingCharacters(in: .whitespacesAndNewlines))
            return true
        }
        guard let port = URL(string: url)?.port else { throw HarnessError("origin \(name) printed no port: \(url)") }
        return StartedOrigin(url: url, port: port, accessLog: log)
    }

    /// Starts a named process from the bin directory (or `executable` itself when it is an absolute path, such
    /// as `/usr/bin/curl`) with STOWAGE_HOME set; its stderr goes to `NAME.log`, its stdout there too or to `stdout`.
    @discardableResult
    public func spawn(
        _ name: String, _ executable: String, _ arguments: [String], stdout: URL? = nil, namespace: String? = nil,
        environment: [String: String] = [:]
    ) throws -> Process {
        // A Swift program started under libfaketime's LD_PRELOAD sees no command-line arguments (Swift 6.3 on
        // this machine): options given that way would be silently dropped, so they must come as STOWAGE_*
        // environment variables (every option has one).
        if environment["LD_PRELOAD"] != nil, !arguments.isEmpty, !executable.hasPrefix("/") {
            throw HarnessError(
                "\(executable) under LD_PRELOAD would not see \(arguments): give them as STOWAGE_* environment values")
        }
        let p = Process()
        if let namespace {
            // Another test host: the same program inside a network namespace.
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            p.arguments = ["netns", "exec", namespace, bin.appendingPathComponent(executable).path] + arguments
        } else {
            p.executableURL =
                executable.hasPrefix("/") ? URL(fileURLWithPath: executable) : bin.appendingPathComponent(executable)
            p.arguments = arguments
        }
        var env = Harness.cleanEnvironment()
        env["STOWAGE_HOME"] = home.path
        env.merge(environment) { _, new in new }
        p.environment = env
        let log = root.appendingPathComponent("\(name).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        logHandle.seekToEndOfFile()
        p.standardError = logHandle
        if let stdout {
            FileManager.default.createFile(atPath: stdout.path, contents: nil)
            p.standardOutput = try FileHandle(forWritingTo: stdout)
        } else {
            p.standardOutput = logHandle
        }
        try p.run()
        processes[name] = p
        return p
    }

    /// A TCP port free on 127.0.0.1 now (the kernel picks it), so two test runs never pick the same one.
    public static func freePort() throws -> Int {
        let (fd, port) = try loopbackSocket(listening: false)
        close(fd)
        return port
    }

    /// A TCP socket bound to a port of 127.0.0.1 the kernel picks (listening when asked), and that port; the
    /// caller closes it.
    public static func loopbackSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && (!listening || listen(fd, 4) == 0) && getsockname(fd, $0, &len) == 0
            }
        }
        guard ok else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw HarnessError("cannot bind a port of 127.0.0.1: \(why)")
        }
        return (fd, Int(UInt16(bigEndian: addr.sin_port)))
    }

    /// libfaketime (Debian `faketime`, installed by Deploy/test.sh).
    public static let faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

    /// A fake wall clock for a process: the environment that loads libfaketime, and the file holding the offset
    /// (`+600`, `-3600`, seconds) that can be rewritten while the process runs. The monotonic clock stays real.
    public func fakeClock(_ name: String) throws -> (file: URL, environment: [String: String]) {
        guard FileManager.default.fileExists(atPath: Harness.faketime) else {
            throw HarnessError(
                "libfaketime is missing at \(Harness.faketime): install Debian's faketime (Deploy/test.sh does)")
        }
        let file = root.appendingPathComponent("\(name).faketime")
        try "+0".write(to: file, atomically: true, encoding: .utf8)
        return (
            file,
            [
                "LD_PRELOAD": Harness.faketime, "FAKETIME_TIMESTAMP_FILE": file.path, "FAKETIME_NO_CACHE": "1",
                "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            ]
        )
    }

    /// This process's environment without any `STOWAGE_*` variable: a test sets what it means to set.
    public static func cleanEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STOWAGE_") }
    }

    /// Starts the scheduler and returns once it answers on its ipc socket (or has exited): `stowctl` says at once
    /// that no scheduler listens, so a test's next command must not race the scheduler's bind.
    public func startScheduler(_ extra: [String] = [], environment: [String: String] = [:]) throws {
        let scheduler = try spawn(
            "scheduler", "stowage-scheduler", extra, environment: try storeEnvironment(extra, environment))
        try waitUntil(timeout: 30, "the scheduler to answer") {
            !scheduler.isRunning || (try? self.stowctl(["workers", "--json"]))?.0 == 0
        }
    }

    public func startWorker(_ kind: String, name: String? = nil, environment: [String: String] = [:]) throws {
        try spawn(name ?? kind, "stowage-\(kind)-worker", [], environment: environment)
    }

    public func startPipeline(schedulerArguments: [String] = []) throws {
        try startScheduler(schedulerArguments)
        try startWorker("license")
        try startWorker("download")
        try startWorker("integrity")
        try waitUntil(timeout: 20, "three workers registered") { (try? self.workers().count) == 3 }
    }

    /// `stowctl play TOKEN` in the background; returns the URL it prints.
    public func startPlay(_ token: String) throws -> String {
        let out = root.appendingPathComponent("play-\(token).out")
        try spawn("play-\(token)", "stowctl", ["play", token], stdout: out)
        var url = ""
        try waitUntil(timeout: 20, "stowctl play to print its URL") {
            url = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").trimmingCharacters(
                in: .whitespacesAndNewlines)
            return url.hasPrefix("http://")
        }
        return url
    }

    public func kill9(_ name: String) {
        guard let p = processes[name] else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    public func terminate(_ name: String) -> Int32? {
        guard let p = processes[name] else { return nil }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// The pid of a process started by ``spawn``.
    public func pid(_ name: String) -> Int32? { processes[name]?.processIdentifier }

    /// What a process wrote to stderr (its log).
    public func log(_ name: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }

    public func isRunning(_ name: String) -> Bool { processes[name]?.isRunning == true }

    /// Runs an executable to completion; returns its exit status and stdout.
    public func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = bin.appendingPathComponent(executable)
        p.arguments = arguments
        var env = Harness.cleanEnvironment()
        env["STOWAGE_HOME"] = home.path
        env.merge(clientEnvironment) { _, new in new }
        p.environment = env
        return try runCapturingOutput(p)
    }

    public func stowctl(_ arguments: [String]) throws -> (Int32, String) { try run("stowctl", arguments) }

    /// `stowctl` with its standard error kept, for error wording.
    public func stowctlStreams(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = bin.appendingPathComponent("stowctl")
        p.arguments = arguments
        var env = Harness.cleanEnvironment()
        env["STOWAGE_HOME"] = home.path
        env.merge(clientEnvironment) { _, new in new }
        p.environment = env
        return try runCapturingStreams(p)
    }

    public func status(_ token: String) throws -> TitleStatus {
        let (code, out) = try stowctl(["status", token, "--json"])
        guard code == 0 else { throw HarnessError("stowctl status exited \(code): \(out)") }
        return try JSONDecoder().decode(TitleStatus.self, from: Data(out.utf8))
    }

    /// Waits until the origin has no connection open (`ss`): every request it served, or that was cut, has
    /// been logged, and idle keep-alive connections have closed.
    public func waitForOriginIdle(timeout: Double = 20) throws {
        guard let port = URL(string: originURL)?.port else { throw HarnessError("no origin running") }
        try waitUntil(timeout: timeout, "no connection open at the origin") {
            let (_, out) = try TestMedia.shOutput(
                "ss -Htn state established '( sport = :\(port) )' | wc -l", in: self.root)
            return out.trimmingCharacters(in: .whitespacesAndNewlines) == "0"
        }
    }

    /// Waits until the origin's access log has not grown for `quiet` seconds: an origin with latency answers
    /// (and logs) a request some time after it arrived, even one whose client has gone.
    public func waitForOriginLogToSettle(quiet: Double, timeout: Double = 20) throws {
        var count = originLog().count
        var since = Date()
        try waitUntil(timeout: timeout, "the origin's log to settle") {
            let now = originLog().count
            if now != count {
                count = now
                since = Date()
            }
            return Date().timeIntervalSince(since) >= quiet
        }
    }

    /// Waits until no worker holds a task (what was in flight has ended or was called back).
    public func waitForIdleWorkers(timeout: Double = 20) throws {
        try waitUntil(timeout: timeout, "every worker idle") {
            (try? self.workers())?.allSatisfy { $0.tasksInHand == 0 } == true
        }
    }

    public func workers() throws -> [WorkerInfo] {
        let (code, out) = try stowctl(["workers", "--json"])
        guard code == 0 else { throw HarnessError("stowctl workers exited \(code)") }
        return try JSONDecoder().decode([WorkerInfo].self, from: Data(out.utf8))
    }

    public func submit(_ path: String, _ extra: [String] = []) throws -> String {
        let (code, out) = try stowctl(["submit", originURL + path] + extra)
        guard code == 0, let token = out.split(separator: "\n").last else {
            throw HarnessError("submit exited \(code): \(out)")
        }
        return String(token)
    }

    public func waitForFinal(_ token: String, timeout: Double = 120) throws -> TitleStatus {
        var last: TitleStatus?
        try waitUntil(timeout: timeout, "title \(token) to end") {
            last = try? self.status(token)
            return last?.state.isFinal == true
        }
        return last!
    }

    public func waitUntil(timeout: Double, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(100_000)
        }
        throw HarnessError("timed out after \(timeout) s waiting for \(what); logs in \(root.path)")
    }

    /// The origin's access log lines (`<epoch> <method> <path> <status> <bytes> <range> <if-range>`).
    public func originLog() -> [[Substring]] {
        let log = (try? String(contentsOf: root.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map { $0.split(separator: " ") }
    }

    /// The URL paths of a title's files the store records as verified (read with sqlite3, as an operator
    /// would, e.g. while the scheduler is down).
    public func verifiedPaths(_ token: String) throws -> [String] {
        let rows = try storeQuery("SELECT url FROM resource WHERE token = '\(token)' AND state = 'verified'")
        return rows.split(separator: "\n").compactMap { URL(string: String($0))?.path }
    }

    /// GET requests the origin logged for exactly this path (its query ignored).
    public func originGets(path: String) -> Int {
        originLog().filter { $0.count > 2 && $0[1] == "GET" && $0[2].split(separator: "?")[0] == path }.count
    }

    /// Requests the origin logged whose path contains `text`.
    public func originRequests(containing text: String) -> Int {
        let log = (try? String(contentsOf: root.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter {
            $0.split(separator: " ").count > 2 && $0.split(separator: " ")[2].contains(text)
        }.count
    }

    /// Number of GET requests the origin logged for a path suffix.
    public func originRequests(matching suffix: String) -> Int {
        let log = (try? String(contentsOf: root.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter {
            $0.split(separator: " ").count > 2 && $0.split(separator: " ")[2].hasSuffix(suffix)
        }.count
    }
}

public struct HarnessError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// An origin started by ``Harness/startOrigin(named:root:host:port:extra:accessLog:)``.
public struct StartedOrigin: Sendable {
    /// `http://HOST:PORT/`
    public let url: String
    public let port: Int
    public let accessLog: URL

    /// The lines of its access log (`<epoch> <method> <path> <status> <bytes> <range> <if-range> <credentials>`).
    public func requests() -> [String] {
        ((try? String(contentsOf: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
