import Foundation
import StowageProtocol
import StowageQR

/// `stowctl devices add NAME --pair`: the device with a one-time pairing link instead of a secret.
extension DevicesCommand.Add {
    /// What `--json` prints.
    struct PairingOutput: Encodable {
        var name: String
        /// The whole link (nil when no gateway address is known: then `path` alone).
        var link: String?
        var path: String
        var expiresAt: String
        var validSeconds: Double
        /// The QR code as `stowctl` prints it (Unicode half blocks), nil without a link.
        var qrText: String?
    }

    /// Adds the device with a pairing code and prints the link, its expiry and its QR code: the link is the last
    /// line on stdout; the QR code comes before it, the notes on stderr.
    func runPairing() throws {
        let pairing = try connection.request(.devicePair(name: name))
        let base = gatewayURL ?? DevicesCommand.Sign.publishedGatewayURL(connection.scheduler.stowageHome)
        let link = base.map { $0 + pairing.path }
        let qr = try link.map { try QRCode($0).terminalText() }
        if connection.json {
            return printJSON(
                PairingOutput(
                    name: pairing.name, link: link, path: pairing.path, expiresAt: pairing.expiresAt,
                    validSeconds: pairing.validSeconds, qrText: qr))
        }
        let until = Self.localTime(pairing.expiresAt)
        let minutes = Int(pairing.validSeconds / 60)
        guard let link, let qr else {
            printError(
                "device \(pairing.name) added; no gateway address is known (no --gateway-url, and no stowage-gateway "
                    + "has listened for this home): put the gateway's address before this path, which works once, "
                    + "until \(until) (\(minutes) minutes):")
            return print(pairing.path)
        }
        printError(
            "device \(pairing.name) added: scan this code or open the link on the device; it works once, until "
                + "\(until) (\(minutes) minutes)")
        print(qr)
        print("expires \(until)")
        print(link)
    }

    /// `2026-11-27T22:14:05Z` as this machine's local time (`22:14:05 UTC+1`); the text itself if unreadable.
    static func localTime(_ iso: String) -> String {
        guard let date = ISO8601DateFormatter().date(from: iso) else { return iso }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "HH:mm:ss zzz"
        return formatter.string(from: date)
    }
}
