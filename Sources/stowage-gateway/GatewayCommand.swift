import ArgumentParser
import CSystemShims
import Foundation
import Logging
import StowageFetch
import StowageGateway
import StowageProcess
import StowageRuntime

/// `stowage-gateway`: serves the library to the devices of the LAN over HTTP(S).
@main
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stowage-gateway",
        abstract: "Serve the offline library to the devices of the LAN over HTTP(S).",
        discussion: """
            A client of stowage-scheduler, like stowctl. Devices play titles at /titles/<token-or-id>/ with \
            any HLS player; a browser gets the library page at /.

            Credentials, on every path but /login:
              Authorization: Bearer SECRET           a device's secret (`stowctl devices add NAME`) or the admin's
              ?dev=NAME&exp=UNIX&sig=HEX             a signed URL (`stowctl devices sign NAME PATH`)
              the stowage_session cookie             set by /login (a form that takes a secret)
            Devices see the titles they may play (and those on their way) and play them; the admin \
            (--admin-secret) may also pause, resume, renew and delete titles. Failed credentials are throttled \
            per client address (429 with Retry-After).
            State-changing requests made with the cookie (POST /api/titles/..., POST /logout) must carry the \
            session's CSRF token (header X-CSRF-Token; the admin's pages send it) from the gateway's own origin.

            Routes: /  /play/<key>  /login  /logout  /titles/<key>/...  /resolve?id=ID|url=URL  /api/titles  \
            /api/titles/<token>/pause|resume|renew|delete (POST, admin)  /events (server-sent events).

            Examples:
              stowage-gateway --listen 0.0.0.0:8443 --tls-cert box.pem --tls-key box.key --admin-secret admin.txt
              stowage-gateway --listen 127.0.0.1:8480      # plain HTTP only on loopback (or behind a TLS proxy)
              curl -H "Authorization: Bearer $SECRET" http://box:8480/resolve?id=movie-42
            Prints `listening http://HOST:PORT/` once ready; SIGTERM stops it gracefully.
            """)

    @OptionGroup var connection: SchedulerConnectionOptions

    @Option(
        help: ArgumentHelp(
            "Address and port to listen on (default 0.0.0.0:8480). [env: STOWAGE_LISTEN]", valueName: "host:port"))
    var listen: String?

    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp("PEM certificate chain: serve HTTPS. [env: STOWAGE_TLS_CERT]", valueName: "file"))
    var tlsCert: String?

    @Option(
        name: .customLong("tls-key"),
        help: ArgumentHelp("PEM private key of --tls-cert. [env: STOWAGE_TLS_KEY]", valueName: "file"))
    var tlsKey: String?

    @Flag(
        name: .customLong("fallback-to-source"),
        help: """
            /resolve of a title that cannot be played offline sends the player to its source URL (else 404). \
            [env: STOWAGE_FALLBACK_TO_SOURCE=1]
            """)
    var fallbackToSource = false

    @Option(
        name: .customLong("admin-secret"),
        help: ArgumentHelp(
            "File holding the admin's secret. None: no admin. [env: STOWAGE_ADMIN_SECRET, the secret itself]",
            valueName: "secret-file"))
    var adminSecret: String?

    @Option(
        name: .customLong("cors-origin"),
        help: ArgumentHelp(
            "An origin (scheme://host[:port]) whose pages may call the gateway with credentials; repeatable. "
                + "None: no CORS. [env: STOWAGE_CORS_ORIGIN, comma-separated]", valueName: "origin"))
    var corsOrigin: [String] = []

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "Where devices reach the gateway, for absolute links; without it links are relative. "
                + "[env: STOWAGE_PUBLIC_URL]", valueName: "url"))
    var publicURL: String?

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "How long an idle connection stays open: seconds, or 30s, 2m (default 30). [env: STOWAGE_IDLE_TIMEOUT]",
            valueName: "seconds"), transform: SecondsOrSpan.parsing)
    var idleTimeout: SecondsOrSpan?

    @Option(
        name: .customLong("stall-timeout"),
        help: ArgumentHelp(
            "How long a client may leave a response unread (nothing taken from a full send buffer) before it is cut "
                + "off: seconds, or 30s, 2m (default 30). [env: STOWAGE_STALL_TIMEOUT]", valueName: "seconds"),
        transform: SecondsOrSpan.parsing)
    var stallTimeout: SecondsOrSpan?

    @Flag(
        name: .customLong("no-zero-copy"),
        help: """
            Read title files into buffers instead of sending them with sendfile (plain HTTP; TLS always reads). \
            [env: STOWAGE_NO_ZERO_COPY=1]
            """)
    var noZeroCopy = false

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("The least severe level logged (default info). [env: STOWAGE_LOG_LEVEL]", valueName: "level")
    )
    var logLevel: LogLevel?

    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "Log lines as text (default) or json (one JSON object per line). [env: STOWAGE_LOG_FORMAT]",
            valueName: "format"))
    var logFormat: LogFormat?

    /// Every option from its flag, else its `STOWAGE_` variable; a bad value of either stops the start naming it
    /// (exit 2).
    mutating func validate() throws {
        listen = try EnvironmentRule.resolve(listen, "listen") {
            ListenOptions.parse($0) == nil ? "is not HOST:PORT, e.g. 0.0.0.0:8480" : nil
        }
        tlsCert = try EnvironmentRule.resolve(tlsCert, "tls-cert", check: OptionChecks.readableFile)
        tlsKey = try EnvironmentRule.resolve(tlsKey, "tls-key", check: OptionChecks.readableFile)
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("give both --tls-cert and --tls-key, or neither")
        }
        fallbackToSource = try EnvironmentRule.resolve(flag: fallbackToSource, "fallback-to-source")
        if let adminSecret {
            if let problem = OptionChecks.readableFile(adminSecret) {
                throw ValidationError("--admin-secret \(adminSecret): \(problem)")
            }
        } else {
            _ = try Self.environmentSecret()
        }
        corsOrigin = try EnvironmentRule.resolve(list: corsOrigin, "cors-origin", separator: { $0 == "," }) {
            WebOrigin.exact($0.trimmingCharacters(in: .whitespaces)) == nil
                ? "wants an origin such as https://player.example:8443 (scheme, host, port; no path)" : nil
        }
        corsOrigin = corsOrigin.map { $0.trimmingCharacters(in: .whitespaces) }
        publicURL = try EnvironmentRule.resolve(publicURL, "public-url") {
            WebOrigin.of($0) == nil || $0.contains("?") || $0.contains("#")
                ? "wants an http(s) URL such as https://box.lan:8443" : nil
        }
        let positive = { (span: SecondsOrSpan) in span.seconds > 0 ? nil : "must be longer than 0s" }
        idleTimeout = try EnvironmentRule.resolve(idleTimeout, "idle-timeout", check: positive)
        stallTimeout = try EnvironmentRule.resolve(stallTimeout, "stall-timeout", check: positive)
        noZeroCopy = try EnvironmentRule.resolve(flag: noZeroCopy, "no-zero-copy")
        logLevel = try EnvironmentRule.resolve(logLevel, "log-level")
        logFormat = try EnvironmentRule.resolve(logFormat, "log-format")
    }

    /// `STOWAGE_ADMIN_SECRET`: the secret itself (never echoed in an error), trimmed; nil when unset.
    private static func environmentSecret() throws -> String? {
        try EnvironmentRule.resolve(String?.none, "admin-secret", secret: true) {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? "holds only spaces" : nil
        }?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// As `AsyncParsableCommand.main()`, but a usage error exits 2, as every Stowage executable's does.
    static func main() async { await topLevelMain() }

    func run() async throws {
        // It holds the admin secret and device sessions: other processes of its user may not read its memory.
        _ = stowage_forbid_inspection()
        LogSetup.bootstrap(level: logLevel, format: logFormat)
        let logger = Logger(label: "stowage-gateway")
        guard let (host, port) = ListenOptions.parse(listen ?? Self.defaultListen) else {
            throw ValidationError("--listen wants HOST:PORT")
        }
        let secret = try readAdminSecret()
        let backend: SchedulerBackend
        do {
            backend = try SchedulerBackend(connect: connection.connector())
        } catch {
            throw ValidationError("cannot reach the scheduler: \(error)")
        }
        let gateway = Gateway(
            configuration: .init(
                titlesRoot: connection.stowageHome.titlesRoot, adminSecret: secret,
                fallbackToSource: fallbackToSource, secureCookies: tlsCert != nil,
                corsOrigins: corsOrigin.compactMap(WebOrigin.exact), publicURL: publicURL),
            backend: backend, logger: logger, clock: { monotonic() },
            sourceFetcher: { HTTPFetcher(logger: logger, connectionsPerHost: 4) },
            previewer: FetchPreviewer(logger: logger))
        let listenOptions = ListenOptions(
            host: host, port: port, tlsCertificate: tlsCert, tlsKey: tlsKey,
            idleTimeoutSeconds: Self.wholeSeconds(idleTimeout, default: 30),
            stallTimeoutSeconds: Self.wholeSeconds(stallTimeout, default: 30), zeroCopy: !noZeroCopy)
        let scheme = listenOptions.tls ? "https" : "http"
        if let warning = listenOptions.plaintextWarning { logger.warning("\(warning)") }
        let home = connection.stowageHome
        let publicURL = publicURL
        let app = try gateway.application(listen: listenOptions) { bound in
            let shown = host.contains(":") ? "[\(host)]" : host
            FileHandle.standardOutput.write(Data("listening \(scheme)://\(shown):\(bound)/\n".utf8))
            logger.info("listening", metadata: ["url": "\(scheme)://\(shown):\(bound)/", "admin": "\(secret != nil)"])
            let reachable = Self.reachableURL(publicURL: publicURL, scheme: scheme, host: host, port: bound)
            gateway.published(reachableURL: reachable)
            Self.publish(reachable, in: home)
        }
        do {
            try await Lifecycle.run([app, gateway.playReporter, backend.eventRelay(logger: logger)], logger: logger)
        } catch {
            throw ListenFailure.explaining(error, host: host, port: port) ?? error
        }
    }

    /// Where devices reach this gateway: `--public-url`, else the address it listens on (this machine's host name
    /// for a wildcard address).
    static func reachableURL(publicURL: String?, scheme: String, host: String, port: Int) -> String {
        if let publicURL { return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL }
        let name = host == "0.0.0.0" || host == "::" ? ProcessInfo.processInfo.hostName : host
        return "\(scheme)://\(name.contains(":") ? "[\(name)]" : name):\(port)"
    }

    /// Writes `url` to the home's ``StowageHome/gatewayURLFile`` for `stowctl devices sign`; a home it cannot
    /// write only loses that convenience.
    static func publish(_ url: String, in home: StowageHome) {
        try? FileManager.default.createDirectory(at: home.runDirectory, withIntermediateDirectories: true)
        try? Data((url + "\n").utf8).write(to: home.gatewayURLFile, options: .atomic)
    }

    /// Where the gateway listens without `--listen` or `STOWAGE_LISTEN`.
    static let defaultListen = "0.0.0.0:8480"

    /// A timeout in whole seconds (a fraction rounds up: `0.5s` still waits), or `value` when none was given.
    static func wholeSeconds(_ span: SecondsOrSpan?, default value: Int64) -> Int64 {
        span.map { Int64($0.seconds.rounded(.up)) } ?? value
    }

    /// The admin's secret from `--admin-secret FILE` or `STOWAGE_ADMIN_SECRET`, trimmed; nil when neither.
    private func readAdminSecret() throws -> String? {
        if let adminSecret {
            guard let text = try? String(contentsOfFile: adminSecret, encoding: .utf8) else {
                throw ValidationError("cannot read --admin-secret \(adminSecret)")
            }
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw ValidationError("--admin-secret \(adminSecret) is empty") }
            return secret
        }
        return try Self.environmentSecret()
    }
}
