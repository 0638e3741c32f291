import ArgumentParser
import Foundation
import StowageProcess
import StowageProtocol
import StowageRuntime

/// `stowctl devices add|list|revoke|sign`: the devices of the LAN that `stowage-gateway` serves.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract:
            "Devices allowed to play through stowage-gateway: add (a secret, or --pair: a one-time link and QR code), "
            + "list, revoke, sign URLs.",
        discussion: """
            A device presents its secret to the gateway as `Authorization: Bearer SECRET`, through the gateway's \
            /login page (a browser cookie), or as a signed URL from `devices sign` for players that cannot send \
            headers. `devices add NAME --pair` prints a one-time link (and its QR code) instead of the secret: opened \
            within 10 minutes, it logs that browser in as the device, once. Revoking a device stops its secret, its \
            sessions, its pairing link and its signed URLs at once. Plays are counted per title \
            across all devices of the box; `devices list` shows each device's last plays.
            """,
        subcommands: [Add.self, ListDevices.self, Revoke.self, Sign.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a device; its secret is the last line on stdout (shown only now: keep it).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Device name: letters, digits, '.', '_' or '-'.") var name: String
        @Flag(
            help: ArgumentHelp(
                "Another box: its secret reads titles' manifests and files (submit --from-peer there), never plays.",
                discussion: "Ordinary devices get 403 on /titles/ID/manifest.json; a peer gets no plays or keys."))
        var peer = false
        @Flag(
            help: ArgumentHelp(
                "Print a one-time pairing link and its QR code instead of the secret.",
                discussion: "Opened (or scanned) within 10 minutes, the link logs that one browser in as the device."))
        var pair = false
        @Option(
            name: .customLong("gateway-url"),
            help: ArgumentHelp(
                "With --pair: where devices reach the gateway (default: what this home's gateway published).",
                valueName: "url"))
        var gatewayURL: String?

        mutating func validate() throws {
            if pair && peer { throw ValidationError("--pair is for devices that play; a --peer box takes its secret") }
            if gatewayURL != nil && !pair { throw ValidationError("--gateway-url goes with --pair") }
            gatewayURL = try gatewayURL.map(Sign.checkedGatewayURL)
        }

        func run() throws {
            if pair { return try runPairing() }
            let added = try connection.request(.deviceAdd(name: name, peer: peer))
            if connection.json {
                printJSON(added)
            } else {
                printError("device \(added.name) added; its secret (shown once):")
                print(added.secret)
            }
        }
    }

    struct ListDevices: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Devices and their last plays.")
        @OptionGroup var connection: ConnectionOptions
        func run() throws {
            let devices = try connection.request(.devices)
            if connection.json { return printJSON(devices) }
            if devices.isEmpty { print("no devices: add one with `stowctl devices add NAME`") }
            for d in devices {
                let state = d.revokedAt.map { "revoked \($0)" } ?? "active"
                print(
                    "\(d.name)\(d.peer == true ? " (peer box)" : "")  \(state)  added \(d.createdAt ?? "-")"
                        + "  last seen \(d.lastSeenAt ?? "never")")
                for p in d.lastPlays.prefix(5) { print("    played \(p.title ?? p.token) at \(p.at)") }
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its secret, cookies and signed URLs stop working at once.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Device name.") var name: String
        func run() throws {
            _ = try connection.client().request(.deviceRevoke(name: name))
            if connection.json { printJSON(["name": name, "revoked": "true"]) } else { print("\(name) revoked") }
        }
    }

    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A signed gateway URL for a device (?dev=…&exp=…&sig=…), for players without headers.",
            discussion: """
                PATH is a gateway path such as /titles/ID/master.m3u8. A signature on a path under /titles/ID/ \
                covers that whole title (its playlists, media and keys), until it expires or the device is revoked. \
                Prints the whole URL: the gateway's address (its --public-url, as this home's gateway published it \
                when it started, or --gateway-url) and the signed path.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Device name.") var name: String
        @Argument(help: "Gateway path, e.g. /titles/ID/master.m3u8.") var path: String
        @Option(
            help: ArgumentHelp("How long it stays valid (90s, 15m, 24h, 30d).", valueName: "duration"),
            transform: TimeSpan.parsing)
        var expires: TimeSpan
        @Option(
            name: .customLong("gateway-url"),
            help: ArgumentHelp(
                "Where devices reach the gateway (default: what this home's gateway published: its --public-url, "
                    + "else its address).", valueName: "url"))
        var gatewayURL: String?

        mutating func validate() throws {
            gatewayURL = try gatewayURL.map(Self.checkedGatewayURL)
            guard expires.seconds > 0 else {
                throw ValidationError("--expires takes a duration such as 90s, 15m, 24h or 30d")
            }
            guard path.hasPrefix("/") else { throw ValidationError("PATH is a gateway path starting with '/'") }
        }

        func run() throws {
            let signed = try connection.request(
                .deviceSign(name: name, path: path, expiresInSeconds: expires.seconds))
            let base = gatewayURL ?? Self.publishedGatewayURL(connection.scheduler.stowageHome)
            guard let base else {
                if connection.json { return printJSON(["name": name, "path": signed]) }
                printError(
                    "no gateway address known (no --gateway-url, and no stowage-gateway has listened for this home): "
                        + "put the gateway's address before this path")
                return print(signed)
            }
            let url = base + signed
            if connection.json { printJSON(["name": name, "path": signed, "url": url]) } else { print(url) }
        }

        /// `--gateway-url` checked, without a trailing `/`.
        static func checkedGatewayURL(_ url: String) throws -> String {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""),
                parsed.host != nil, parsed.query == nil
            else { throw ValidationError("--gateway-url wants an http(s) URL such as https://box.lan:8443") }
            return url.hasSuffix("/") ? String(url.dropLast()) : url
        }

        /// What the home's gateway wrote when it started listening (its `--public-url`, else its address).
        static func publishedGatewayURL(_ home: StowageHome) -> String? {
            guard let text = try? String(contentsOf: home.gatewayURLFile, encoding: .utf8) else { return nil }
            let url = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return url.isEmpty ? nil : url
        }
    }
}
