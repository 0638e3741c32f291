import Foundation
import StowageTestSupport
import Testing

/// Every `STOWAGE_<OPTION>` every executable reads, set to a bad value, stops its start within seconds: exit 2, and
/// a message on stderr naming the variable. The variables are not typed out here: they come from each executable's
/// own option table (argument-parser's `--experimental-dump-help`), where every option of a long-running process
/// must say `[env: STOWAGE_<OPTION>]` (the rule: every option has a variable) and `stowctl`'s connection options
/// say theirs. A new option therefore joins this test by itself; one whose variable is not read (or read without
/// its check) makes it fail.
@Suite("Environment rule, every executable")
struct EnvironmentRuleTests {
    /// A bad value for each kind of value, by the value name `--help` shows (`--quota <size>`). A value name not
    /// here fails the test: say what a bad value of the new kind is.
    static let badValues: [String: String] = [
        "n": "many", "size": "12Q", "rate": "10Mb", "duration": "90", "seconds": "soon",
        "dir": "/dev/null", "file": "/nonexistent/stowage-test/file", "path": "/nonexistent/stowage-test/path",
        "endpoint": "udp://nowhere:1", "endpoints": "tcp://a:7700,,tcp://b:7700", "key|file": "not-a-key",
        "[host:]port": "nonsense", "host:port": "nonsense",
        "level": "loud", "format": "xml", "url": "not a url", "url|file": "/nonexistent/stowage-test/catalog.json",
        "origin": "nope", "hosts": "bad host!", "cidr,...": "10.0.0.0/99", "HH:MM-HH:MM": "25:00-26:00",
        "SPEC": "01:00-06:00=fast", "secret-file": "   ",
    ]
    /// A bad value for an on/off flag's variable.
    static let badSwitch = "maybe"

    /// The long-running executables: each of their options has a variable.
    static let daemons = [
        "stowage-scheduler", "stowage-download-worker", "stowage-integrity-worker", "stowage-license-worker",
        "stowage-gateway",
    ]

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// One option as `--experimental-dump-help` describes it.
    struct Option: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
        }
        let kind: String
        let names: [Name]?
        let valueName: String?
        let abstract: String?

        var long: String? { names?.first { $0.kind == "long" }?.name }
        var variable: String? {
            long.map { "STOWAGE_" + $0.uppercased().replacingOccurrences(of: "-", with: "_") }
        }
    }

    struct Dump: Decodable {
        struct Command: Decodable { let arguments: [Option]? }
        let command: Command
    }

    /// The options of `executable arguments` as it describes them itself.
    static func options(_ h: Harness, _ executable: String, _ arguments: [String]) throws -> [Option] {
        let (status, out) = try h.run(executable, arguments + ["--experimental-dump-help"])
        #expect(status == 0, "\(executable) --experimental-dump-help exited \(status)")
        let dump = try JSONDecoder().decode(Dump.self, from: Data(out.utf8))
        return (dump.command.arguments ?? []).filter { ($0.kind == "option" || $0.kind == "flag") && $0.long != "help" }
    }

    /// Starts `executable arguments` with `variable=value` (and a private home); waits up to `seconds` for it to
    /// end. Returns its exit status and stderr, or nil status if it was still running (then it is killed).
    static func start(
        _ h: Harness, _ executable: String, _ arguments: [String], _ variable: String, _ value: String,
        seconds: Double = 10
    ) throws -> (status: Int32?, stderr: String) {
        let p = Process()
        p.executableURL = h.bin.appendingPathComponent(executable)
        p.arguments = arguments
        var env = Harness.cleanEnvironment()
        env["STOWAGE_HOME"] = h.home.path
        // Should a bad value be taken, the gateway must not listen on the machine's public port meanwhile.
        if executable == "stowage-gateway" { env["STOWAGE_LISTEN"] = "127.0.0.1:0" }
        env[variable] = value
        p.environment = env
        let errFile = h.root.appendingPathComponent("env-\(variable).err")
        FileManager.default.createFile(atPath: errFile.path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: errFile)
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        let finished = !p.isRunning
        if !finished {
            kill(p.processIdentifier, SIGKILL)
        }
        p.waitUntilExit()
        let stderr = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
        return (finished ? p.terminationStatus : nil, stderr)
    }

    @Test func everyVariableWithABadValueStopsTheStartNamingIt() throws {
        let h = try Harness(name: "env-rule")
        let configuration = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var checked: [String: Int] = [:]
        let programs = Self.daemons.map { ($0, [String]()) } + [("stowctl", ["list"])]
        for (executable, arguments) in programs {
            let daemon = Self.daemons.contains(executable)
            for option in try Self.options(h, executable, arguments) {
                guard let variable = option.variable else { continue }
                let marked = option.abstract?.contains("[env: \(variable)") == true
                if daemon {
                    #expect(marked, "\(executable) --\(option.long ?? "") says no [env: \(variable)] in --help")
                } else if !marked {
                    continue
                }
                let documented = configuration.contains("`\(variable)`")
                #expect(documented, "docs/configuration.md does not name \(variable)")
                let bad = option.kind == "flag" ? Self.badSwitch : Self.badValues[option.valueName ?? ""]
                guard let bad else {
                    Issue.record("no bad value known for <\(option.valueName ?? "")> (\(executable) \(variable))")
                    continue
                }
                let (status, stderr) = try Self.start(h, executable, arguments, variable, bad)
                #expect(status == 2, "\(executable) with \(variable)='\(bad)' exited \(String(describing: status))")
                #expect(stderr.contains(variable), "\(executable) \(variable)='\(bad)': stderr \(stderr.prefix(300))")
                checked[executable, default: 0] += 1
            }
        }
        // The one variable that is no option (a secret: no flag), from the scheduler's --help discussion.
        let (status, stderr) = try Self.start(h, "stowage-scheduler", [], "STOWAGE_MASTER_KEY", "c2hvcnQ=")
        #expect(status == 2 && stderr.contains("STOWAGE_MASTER_KEY"), "\(String(describing: status)) \(stderr)")
        print("[measure] variables checked: \(checked.sorted { $0.key < $1.key })")
        #expect(checked["stowage-scheduler", default: 0] >= 30, "the scheduler's options were found")
        #expect(checked["stowage-gateway", default: 0] >= 15)
        #expect(checked["stowctl", default: 0] == 4, "home, scheduler, curve-key, curve-server-key")
        for worker in ["download", "integrity", "license"] {
            #expect(checked["stowage-\(worker)-worker", default: 0] == 9)
        }
    }

    /// Good values in the same variables are taken: the test above fails for the bad value, not for any value.
    @Test func goodValuesOfTheSameKindsAreTaken() throws {
        let h = try Harness(name: "env-good")
        for (variable, value) in [
            ("STOWAGE_QUOTA", "1.5G"), ("STOWAGE_BANDWIDTH", "2MiB/s"), ("STOWAGE_GIVE_UP_AFTER", "15m"),
            ("STOWAGE_SCRUB_INTERVAL", "86400"), ("STOWAGE_TITLES", "3"),
        ] {
            let (status, stderr) = try Self.start(h, "stowage-scheduler", [], variable, value, seconds: 3)
            #expect(status == nil, "\(variable)=\(value) stopped the scheduler: \(stderr.prefix(300))")
        }
    }
}
