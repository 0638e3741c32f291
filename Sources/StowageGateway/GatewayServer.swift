import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ServiceLifecycle
import StowageProtocol

/// Where and how the gateway listens.
public struct ListenOptions: Sendable {
    public var host: String
    public var port: Int
    /// PEM certificate chain and private key files (both or neither): HTTPS.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// Seconds a connection may sit idle (or a request take to arrive) before it is closed.
    public var idleTimeoutSeconds: Int64
    /// Seconds a client may leave a response unread (the send buffer full, no byte taken) before it is cut off.
    public var stallTimeoutSeconds: Int64
    /// Title files over plain HTTP go out with `sendfile` (``FileRegionWriter``), a play's segments answered on
    /// the event loop (``TitleHotPath``); false, or TLS: read into buffers, every request through the router.
    public var zeroCopy: Bool

    public init(
        host: String, port: Int, tlsCertificate: String? = nil, tlsKey: String? = nil, idleTimeoutSeconds: Int64 = 30,
        stallTimeoutSeconds: Int64 = 30, zeroCopy: Bool = true
    ) {
        self.host = host
        self.port = port
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.stallTimeoutSeconds = stallTimeoutSeconds
        self.zeroCopy = zeroCopy
    }

    /// Whether it serves HTTPS.
    public var tls: Bool { tlsCertificate != nil }

    /// Whether title files are sent with `sendfile`: asked for, and plain HTTP (TLS encrypts in user space).
    public var sendsFiles: Bool { zeroCopy && !tls }

    /// Whether only this machine can reach it: `localhost`, or a loopback address in any form (127.0.0.0/8, ::1,
    /// ::ffff:127.0.0.1), as ``AddressClass`` tells.
    public var loopbackOnly: Bool {
        if host.lowercased() == "localhost" { return true }
        return IPAddress(host).map { AddressClass.kind(of: $0) == .reachable(.loopback) } ?? false
    }

    /// The warning for plain HTTP on an address other machines reach (secrets and cookies cross the LAN in
    /// clear), or nil.
    public var plaintextWarning: String? {
        guard !tls, !loopbackOnly else { return nil }
        return "serving plain HTTP on \(host):\(port): device secrets, signed URLs and session cookies cross the "
            + "network unencrypted; give --tls-cert and --tls-key (or listen on 127.0.0.1 behind a TLS proxy)"
    }

    /// `HOST:PORT` (`[v6]:PORT` too); nil when malformed.
    public static func parse(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}

extension Gateway {
    /// The Hummingbird application serving this gateway; `onRunning` gets the bound port. Over plain HTTP with
    /// zero-copy every connection is a ``GatewayChannel``: title files go out with `sendfile`, and a play's
    /// segments skip the router (``TitleHotPath``). The router counts what reaches it (``ServingCounts``).
    public func application(
        listen: ListenOptions, onRunning: @escaping @Sendable (Int) async -> Void
    ) throws -> Application<CountingResponder<RouterResponder<GatewayRequestContext>>> {
        let stall = TimeAmount.seconds(listen.stallTimeoutSeconds)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [StallTimeoutHandler(timeout: stall), ConnectionEndWatcher()],
            idleTimeout: .seconds(listen.idleTimeoutSeconds))
        var server = HTTPServerBuilder.http1(configuration: http1)
        if listen.sendsFiles {
            server = HTTPServerBuilder { responder in
                GatewayChannel(base: HTTP1Channel(responder: responder, configuration: http1), gateway: self)
            }
        } else if let certificate = listen.tlsCertificate, let key = listen.tlsKey {
            let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                privateKey: .privateKey(privateKey))
            server = try .tls(server, tlsConfiguration: tls)
        }
        let responder = CountingResponder(base: router(zeroCopy: listen.sendsFiles).buildResponder(), counts: traffic)
        return Application(
            responder: responder, server: server,
            configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: Gateway.serverName),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? listen.port) },
            logger: logger)
    }

    /// Stops the plays of titles that can no longer be played (twice a second), reports the media seconds served
    /// every second (`played`) and checks the license of what was played.
    public var playReporter: some Service { PlayReporter(plays: plays, clock: clock) }
}

/// The plays' upkeep, as a service: twice a second the plays of titles no longer playable are stopped
/// (``PlayState/stopUnplayable(now:)``, so within a second), every second the play time is reported; one last
/// report at shutdown.
struct PlayReporter: Service {
    let plays: PlayState
    let clock: @Sendable () -> Double

    func run() async throws {
        var reportDue = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            await plays.stopUnplayable(now: clock())
            if reportDue { await plays.report(now: clock()) }
            reportDue.toggle()
        }
        await plays.report(now: clock())
        await plays.shutdown()
    }
}
