import StowageProtocol

/// What the `EXT-X-KEY` tags of a title's chosen playlists say about its protection: the scheme, key IDs, and
/// the DRM systems that license it. Keys Stowage acquires itself (HLS key delivery, W3C Clear Key) make a title
/// playable here; a title whose only keys belong to a device's DRM (FairPlay `skd://`, Widevine, PlayReady) is
/// device-only.
public enum HLSProtection {
    /// KEYFORMAT -> (system name, system ID).
    static let systems: [String: (name: String, id: String)] = [
        "com.apple.streamingkeydelivery": ("FairPlay", "94ce86fb-07ff-4f43-adb8-93d2fa968ca2"),
        "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": ("Widevine", "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"),
        "com.microsoft.playready": ("PlayReady", "9a04f079-9840-4286-ab92-e65be0885f95"),
        "urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95": ("PlayReady", "9a04f079-9840-4286-ab92-e65be0885f95"),
        MediaPlaylist.Key.clearKey: ("ClearKey", TitleProtection.clearKeySystemID),
        "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e": ("ClearKey", TitleProtection.clearKeySystemID),
    ]

    /// The protection of the media in `playlists`; nil when nothing is encrypted.
    public static func summarize(_ playlists: [MediaPlaylist]) -> TitleProtection? {
        var scheme: String?
        var kids: [String] = []
        var systems: [TitleProtection.System] = []
        var deliverable = false
        var encrypted = false
        for playlist in playlists {
            for (_, key) in playlist.keyLines.sorted(by: { $0.key < $1.key }) where key.isEncrypted {
                encrypted = true
                scheme = scheme ?? schemeName(key.method)
                if let id = key.keyID.map(normalizedKID), !id.isEmpty, !kids.contains(id) { kids.append(id) }
                let format = (key.keyFormat ?? "identity").lowercased()
                if format == "identity" {
                    deliverable = true
                    continue
                }
                if format == MediaPlaylist.Key.clearKey { deliverable = true }
                let known = system(for: format)
                guard !systems.contains(where: { $0.name == known.name }) else { continue }
                var system = TitleProtection.System(name: known.name, systemId: known.id)
                if let uri = key.uri, uri.lowercased().hasPrefix("data:"), let comma = uri.firstIndex(of: ",") {
                    system.pssh = String(uri[uri.index(after: comma)...])  // Widevine / PlayReady: the pssh box
                } else if let uri = key.uri, uri.hasPrefix("http://") || uri.hasPrefix("https://") {
                    system.licenseUrls = [uri]
                }
                systems.append(system)
            }
        }
        guard encrypted else { return nil }
        var urls: [String] = []
        for url in systems.flatMap(\.licenseUrls) where !urls.contains(url) { urls.append(url) }
        return TitleProtection(
            scheme: scheme, systems: systems, kids: kids, licenseUrls: urls, deviceOnly: !deliverable)
    }

    private static func system(for format: String) -> (name: String, id: String?) {
        if let known = systems[format] { return (known.name, known.id) }
        if format.hasPrefix("urn:uuid:") { return (String(format.dropFirst(9)), String(format.dropFirst(9))) }
        return (format, nil)
    }

    /// `aes-128`, `sample-aes`, `cenc` (SAMPLE-AES-CTR) in lowercase.
    static func schemeName(_ method: String) -> String {
        switch method.uppercased() {
        case "AES-128": "aes-128"
        case "SAMPLE-AES-CTR": "cenc"
        case "SAMPLE-AES": "sample-aes"
        default: method.lowercased()
        }
    }

    /// `0x1234…` or a UUID to 32 lowercase hex digits.
    static func normalizedKID(_ text: String) -> String {
        var hex = text.lowercased()
        if hex.hasPrefix("0x") { hex.removeFirst(2) }
        return hex.filter(Hex.isDigit)
    }
}
