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
            Devices may view the library and play; the admin (--admin-secret) may also pause, resume, renew \
            and delete titles. Failed credentials are throttled per client address (429 with Retry-After).
            State-changing requests made with the cookie (POST /api/titles/..., POST /logout) must carry the \
            session's CSRF token (header X-CSRF-Token; the library page sends it) from the gateway's own origin.

            Routes: /  /login  /logout  /titles/<key>/...  /resolve?id=ID|url=URL  /api/titles  \
            /api/titles/<token>/pause|resume|renew|delete (POST, admin)  /events (server-sent events).

            Examples:
              stowage-gateway --listen 0.0.0.0:8443 --tls-cert box.pem --tls-key box.key --admin-secret admin.txt
              stowage-gateway --listen 127.0.0.1:8480      # plain HTTP only on loopback (or behind a TLS proxy)
              curl -H "Authorization: Bearer $SECRET" http://box:8480/resolve?id=movie-42
            Prints `listening http://HOST:PORT/` once ready; SIGTERM stops it gracefully.
            """)

    @OptionGroup var connection: SchedulerConnectionOptions

    @Option(help: ArgumentHelp("Address and port to listen on (or $STOWAGE_LISTEN).", valueName: "HOST:PORT"))
    var listen = environmentOption("listen") ?? "0.0.0.0:8480"

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate chain: serve HTTPS.", valueName: "FILE"))
    var tlsCert: String? = environmentOption("tls-cert")

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "FILE"))
    var tlsKey: String? = environmentOption("tls-key")

    @Flag(
        name: .customLong("fallback-to-source"),
        help: "/resolve of a title that cannot be played offline sends the player to its source URL (else 404).")
    var fallbackToSource = false

    @Option(
        name: .customLong("admin-secret"),
        help: ArgumentHelp(
            "File holding the admin's secret (or $STOWAGE_ADMIN_SECRET). None: no admin.", valueName: "FILE"))
    var adminSecret: String?

    @Option(
        name: .customLong("cors-origin"),
        help: ArgumentHelp(
            "An origin (scheme://host[:port]) whose pages may call the gateway with credentials; repeatable "
                + "(or $STOWAGE_CORS_ORIGIN, comma-separated). None: no CORS.", valueName: "ORIGIN"))
    var corsOrigin: [String] = []

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "Where devices reach the gateway (or $STOWAGE_PUBLIC_URL), for absolute links; without it links are "
                + "relative.", valueName: "URL"))
    var publicURL: String? = environmentOption("public-url")

    @Option(name: .customLong("idle-timeout"), help: "Seconds before an idle connection is closed.")
    var idleTimeout: Int64 = 30

    @Option(
        name: .customLong("stall-timeout"),
        help: ArgumentHelp(
            "Seconds a client may leave a response unread (nothing taken from a full send buffer) before it is cut "
                + "off (or $STOWAGE_STALL_TIMEOUT).", valueName: "SECONDS"))
    var stallTimeout: Int64 = environmentOption("stall-timeout").flatMap { Int64($0) } ?? 30

    @Flag(
        name: .customLong("no-zero-copy"),
        help: "Read title files into buffers instead of sending them with sendfile (plain HTTP; TLS always reads).")
    var noZeroCopy = false

    @Option(name: .customLong("log-level"), help: "The least severe level logged (default info).")
    var logLevel: LogLevel?

    func validate() throws {
        guard ListenOptions.parse(listen) != nil else {
            throw ValidationError("--listen wants HOST:PORT, not \(listen)")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("give both --tls-cert and --tls-key, or neither")
        }
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout must be positive") }
        guard stallTimeout > 0 else { throw ValidationError("--stall-timeout must be positive") }
        for origin in corsOrigins where WebOrigin.exact(origin) == nil {
            throw ValidationError(
                "--cors-origin wants an origin such as https://player.example:8443 (scheme, host, port; no path), "
                    + "not \(origin)")
        }
        if let publicURL, WebOrigin.of(publicURL) == nil || publicURL.contains("?") || publicURL.contains("#") {
            throw ValidationError("--public-url wants an http(s) URL such as https://box.lan:8443, not \(publicURL)")
        }
    }

    /// `--cors-origin` values, else `STOWAGE_CORS_ORIGIN` split at commas.
    var corsOrigins: [String] {
        if !corsOrigin.isEmpty { return corsOrigin }
        return (environmentOption("cors-origin") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    func run() async throws {
        // It holds the admin secret and device sessions: other processes of its user may not read its memory.
        _ = stowage_forbid_inspection()
        LogSetup.bootstrap(level: logLevel)
        let logger = Logger(label: "stowage-gateway")
        let (host, port) = ListenOptions.parse(listen)!
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
                corsOrigins: corsOrigins.compactMap(WebOrigin.exact), publicURL: publicURL),
            backend: backend, logger: logger, clock: { monotonic() },
            sourceFetcher: { HTTPFetcher(logger: logger, connectionsPerHost: 4) })
        let listenOptions = ListenOptions(
            host: host, port: port, tlsCertificate: tlsCert, tlsKey: tlsKey, idleTimeoutSeconds: idleTimeout,
            stallTimeoutSeconds: stallTimeout, zeroCopy: !noZeroCopy)
        let scheme = listenOptions.tls ? "https" : "http"
        if let warning = listenOptions.plaintextWarning { logger.warning("\(warning)") }
        let app = try gateway.application(listen: listenOptions) { bound in
            let shown = host.contains(":") ? "[\(host)]" : host
            FileHandle.standardOutput.write(Data("listening \(scheme)://\(shown):\(bound)/\n".utf8))
            logger.info("listening", metadata: ["url": "\(scheme)://\(shown):\(bound)/", "admin": "\(secret != nil)"])
        }
        try await Lifecycle.run([app, gateway.playReporter, backend.eventRelay(logger: logger)], logger: logger)
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
        return environmentOption("admin-secret")
    }
}
