import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL for the tests: one server per test process, shared by every suite in it, and a fresh database
/// for each test. Started from Debian's `postgresql` (initdb and pg_ctl from PATH, else /usr/lib/postgresql/*/bin) in
/// a private data folder owned by an unprivileged user (`postgres`; the tests run as root, so through `runuser`), on
/// a free loopback port, with trust authentication on loopback only. A watcher process stops it and removes its
/// folder when the test process is gone, however it died. `STOWAGE_TEST_POSTGRES=postgres://USER@HOST:PORT` points
/// the tests at an existing server instead (its password from PGPASSWORD or the pgpass file). A missing server
/// fails the tests, naming what is missing; it never skips them.
public struct TestPostgres: Sendable {
    public let host: String
    public let port: Int
    public let user: String
    /// Where createdb and the server's programs are.
    let binDirectory: String
    /// The private server's folder (its data in `data/`, its log `server.log`); nil for `STOWAGE_TEST_POSTGRES`'s.
    let folder: String?

    /// The process's server, started on first use.
    public static func shared() throws -> TestPostgres { try instance.get() }

    private static let instance: Result<TestPostgres, HarnessError> = Result { () throws(HarnessError) in
        do { return try start() } catch let error as HarnessError { throw error } catch {
            throw HarnessError("PostgreSQL for the tests: \(error)")
        }
    }

    /// A server of its own for a test that stops or restarts it (``restart()``), so no other test's server goes
    /// down under it. Stopped with the test process, as the shared one is.
    public static func startPrivate() throws -> TestPostgres {
        do { return try start(ownServer: true) } catch let error as HarnessError { throw error } catch {
            throw HarnessError("PostgreSQL for the tests: \(error)")
        }
    }

    /// `pg_ctl restart -m fast`: the server ends every session (as an operator's restart or a failover does) and
    /// is back, with the options it had, once it accepts connections again.
    public func restart() throws {
        guard let folder else { throw HarnessError("STOWAGE_TEST_POSTGRES's server is not the tests' to restart") }
        let result = try Self.run(
            binDirectory + "/pg_ctl",
            ["-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60", "-m", "fast", "restart"],
            asServerUser: true)
        guard result.status == 0 else { throw HarnessError("pg_ctl restart failed: \(result.output)") }
    }

    /// The private server's log (every line `TIME [BACKEND-PID] APPLICATION-NAME …`), "" for an outside server.
    public func serverLog() -> String {
        guard let folder else { return "" }
        return (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
    }

    /// `postgres://USER@HOST:PORT`: a database's URL without its name.
    public var urlPrefix: String { "postgres://\(user)@\(host):\(port)" }

    /// A new empty database; answers its `--store` URL.
    public func createDatabase() throws -> String {
        let name = "t_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20))"
        let result = try Self.run(
            binDirectory + "/createdb", ["-h", host, "-p", String(port), "-U", user, name], asServerUser: false)
        guard result.status == 0 else { throw HarnessError("createdb \(name) failed: \(result.output)") }
        return "postgres://\(user)@\(host):\(port)/\(name)"
    }

    /// Runs SQL through psql on `database` (the tests' own checks and set-ups, beside the store's connection).
    public func psql(_ database: String, _ sql: String, separator: String = "|") throws -> String {
        let result = try Self.run(
            binDirectory + "/psql",
            [
                "-h", host, "-p", String(port), "-U", user, "-d", database, "-XAtq", "-F", separator, "-v",
                "ON_ERROR_STOP=1", "-c", sql,
            ],
            asServerUser: false)
        guard result.status == 0 else { throw HarnessError("psql failed on \(database): \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func start(ownServer: Bool = false) throws -> TestPostgres {
        let bin = try binaries()
        if !ownServer, let given = ProcessInfo.processInfo.environment["STOWAGE_TEST_POSTGRES"], !given.isEmpty {
            guard let url = URLComponents(string: given), let host = url.host else {
                throw HarnessError("STOWAGE_TEST_POSTGRES='\(given)' is not postgres://USER@HOST:PORT")
            }
            return TestPostgres(
                host: host, port: url.port ?? 5432, user: url.user ?? "postgres", binDirectory: bin, folder: nil)
        }
        let folder = NSTemporaryDirectory() + "stowage-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if getuid() == 0 {
            guard let account = getpwnam("postgres") else {
                throw HarnessError(
                    "the tests run as root and there is no 'postgres' user to run PostgreSQL as: install Debian's "
                        + "postgresql (Deploy/test.sh does)")
            }
            guard chown(folder, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
                throw HarnessError("cannot give \(folder) to the postgres user: \(String(cString: strerror(errno)))")
            }
        }
        watch(folder: folder, bin: bin)
        let data = folder + "/data"
        let initdb = try run(
            bin + "/initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
            asServerUser: true)
        guard initdb.status == 0 else { throw HarnessError("initdb failed: \(initdb.output)") }
        var last = ""
        for _ in 0..<3 {  // another process may take the free port between the pick and the bind
            let port = try Harness.freePort()
            let options =
                "-c listen_addresses=127.0.0.1 -p \(port) -k \(folder) -c fsync=off -c synchronous_commit=off "
                + "-c full_page_writes=off -c max_connections=300 -c log_line_prefix='%m [%p] %a '"
            // -w: pg_ctl returns once the server accepts connections (or it gave up), not after a guessed time.
            let started = try run(
                bin + "/pg_ctl", ["-D", data, "-l", folder + "/server.log", "-w", "-t", "60", "-o", options, "start"],
                asServerUser: true)
            if started.status == 0 {
                return TestPostgres(
                    host: "127.0.0.1", port: port, user: "postgres", binDirectory: bin, folder: folder)
            }
            last = started.output + ((try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? "")
        }
        throw HarnessError("PostgreSQL did not start: \(last.suffix(2_000))")
    }

    /// The folder of initdb, pg_ctl and createdb: PATH first (symlinks followed, so the server's own folder), then
    /// the newest /usr/lib/postgresql/*/bin.
    static func binaries() throws -> String {
        let fm = FileManager.default
        var candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let versions = (try? fm.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        for folder in candidates where fm.isExecutableFile(atPath: folder + "/initdb") {
            let real = URL(fileURLWithPath: folder + "/initdb").resolvingSymlinksInPath().deletingLastPathComponent()
            if fm.isExecutableFile(atPath: real.path + "/pg_ctl"), fm.isExecutableFile(atPath: real.path + "/createdb")
            {
                return real.path
            }
        }
        throw HarnessError(
            "no PostgreSQL server programs (initdb, pg_ctl, createdb) in PATH or /usr/lib/postgresql/*/bin: install "
                + "Debian's postgresql (Deploy/test.sh does), or set STOWAGE_TEST_POSTGRES to a server's URL")
    }

    /// A process in a session of its own that outlives this one: when this process is gone (ended, crashed, or
    /// killed with -9), it stops the server at once and removes the folder.
    static func watch(folder: String, bin: String) {
        let asServer = getuid() == 0 ? "runuser -u postgres -- " : ""
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 0.5; done
            \(asServer)'\(bin)/pg_ctl' -D '\(folder)/data' -m immediate stop >/dev/null 2>&1
            rm -rf '\(folder)'
            """
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        watcher.arguments = ["sh", "-c", script]
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try? watcher.run()
    }

    /// Runs a program to its end (as the `postgres` user when asked and running as root); its status and output.
    /// Through posix_spawn and waitpid, not Foundation's Process: the server pg_ctl leaves running inherits the
    /// descriptor Process watches for its child's end, so Process would wait for the server instead.
    static func run(_ program: String, _ arguments: [String], asServerUser: Bool) throws -> (
        status: Int32, output: String
    ) {
        let argv =
            asServerUser && getuid() == 0
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
        let log = NSTemporaryDirectory() + "stowage-pg-run-\(UUID().uuidString)"
        defer { unlink(log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else {
            throw HarnessError("cannot run \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let exited = (status & 0x7f) == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output)
    }
}
