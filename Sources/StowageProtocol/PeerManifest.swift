import Foundation

/// A title's plan as one box's gateway offers it to its peers (`GET /titles/<id>/manifest.json`, for a credential
/// of kind `peer`): enough for another box to make the same offline copy from this box's files, each checked
/// against the SHA-256 given here, and from the origin URL where this box lacks one. Licenses and keys are not in
/// it: every box acquires its own from the title's license or key server.
public struct PeerManifest: Codable, Sendable, Equatable {
    /// The layout's version; a box refuses a manifest of a version it does not read.
    public static let currentFormat = 1

    public var format: Int
    /// The title's token on the peer, and its id (`submit --id`) when it has one.
    public var token: String
    public var id: String?
    public var name: String?
    /// The title's source URL (its master playlist or MPD at the origin).
    public var source: String
    /// The entry playlist's file name in the title's folder (`master.m3u8`, `manifest.mpd`).
    public var entry: String
    public var protection: TitleProtection?
    /// The offline entry playlist's text (``ResolvedPlan/masterPlaylist``).
    public var masterPlaylist: String
    public var renditions: [PlannedRendition]
    /// The content keys the media needs, by their key server URIs (never the keys).
    public var keys: [PlannedKey]
    public var bookmarks: [Bookmark]
    public var bytesEstimate: Int64?
    public var files: [PeerFile]

    public init(
        token: String, id: String?, name: String?, source: String, entry: String, plan: ResolvedPlan,
        files: [PeerFile]
    ) {
        format = Self.currentFormat
        self.token = token
        self.id = id
        self.name = name
        self.source = source
        self.entry = entry
        protection = plan.protection
        masterPlaylist = plan.masterPlaylist
        renditions = plan.renditions
        keys = plan.keys
        bookmarks = plan.bookmarks
        bytesEstimate = plan.bytesEstimate
        self.files = files
    }

    /// The plan a box that fills from this manifest downloads by: the same renditions, files (with their origin
    /// URLs) and keys, so its offline playlists come out byte for byte as the peer's.
    public var plan: ResolvedPlan {
        ResolvedPlan(
            masterPlaylist: masterPlaylist, renditions: renditions, resources: files.map(\.planned),
            bytesEstimate: bytesEstimate, keys: keys, bookmarks: bookmarks,
            manifestName: entry == "master.m3u8" ? nil : entry, protection: protection)
    }

    /// What is wrong with a manifest a peer sent (it is another box's word: checked before anything is planned by
    /// it), or nil: a format this build reads, at least one file, every path inside the title's folder
    /// (``TitlePath``), an http(s) source, and each hash 64 hex digits.
    public var problem: String? {
        guard format == Self.currentFormat else {
            return "manifest format \(format); this box reads format \(Self.currentFormat)"
        }
        guard !files.isEmpty else { return "the manifest lists no files" }
        guard let scheme = URL(string: source)?.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            return "the manifest's source '\(source.prefix(200))' is not an http(s) URL"
        }
        guard TitlePath.isSafe(entry, for: .served), !entry.contains("/") else {
            return "the manifest's entry '\(entry.prefix(200))' is not a file name"
        }
        for rendition in renditions where !rendition.localPath.isEmpty {
            guard TitlePath.isSafe(rendition.localPath, for: .served) else {
                return "playlist path '\(rendition.localPath.prefix(200))' leaves the title's folder"
            }
        }
        if let problem = plan.numberProblem { return "\(problem)" }
        for file in files {
            if let size = file.size, !(0...OutsideNumbers.maxBytes).contains(size) {
                return "\(OutsideNumbers.bytes("files[].size").error("\(size)"))"
            }
            guard TitlePath.isSafe(file.planned.localPath, for: .served) else {
                return "file path '\(file.planned.localPath.prefix(200))' leaves the title's folder"
            }
            if let sha256 = file.sha256, !Self.isHexDigest(sha256) {
                return "file \(file.planned.localPath.prefix(200)): '\(sha256.prefix(80))' is not a SHA-256"
            }
        }
        return nil
    }

    /// 64 lowercase or uppercase hex digits.
    static func isHexDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0 | 0x20) }
    }
}

/// One file of a ``PeerManifest``: where it lies in the title's folder, and, when the peer holds it verified,
/// its size and SHA-256. `planned` keeps the origin's URL and byte range, for the files fetched from there.
public struct PeerFile: Codable, Sendable, Equatable {
    public var planned: PlannedResource
    /// Bytes on the peer; nil when the peer does not hold the file verified (it is taken from the origin).
    public var size: Int64?
    /// SHA-256 (hex) of the peer's verified copy; nil as for `size`.
    public var sha256: String?

    public init(planned: PlannedResource, size: Int64?, sha256: String?) {
        self.planned = planned
        self.size = size
        self.sha256 = sha256
    }
}

/// Where a title fills from (`submit --from-peer URL --peer-secret FILE ID`): another box's gateway, the title's
/// id there, and this box's `peer` secret on it. Kept with the title so its files can be fetched again.
public struct PeerSource: Codable, Sendable, Equatable {
    /// The gateway's base URL, `http(s)://host:port` (no trailing slash).
    public var url: String
    /// The title's id (or token) on that box.
    public var id: String
    /// The secret of the `peer` credential the other box gave (`stowctl devices add NAME --peer` there).
    public var secret: String

    public init(url: String, id: String, secret: String) {
        self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.id = id
        self.secret = secret
    }

    /// `<url>/titles/<id>/manifest.json`.
    public var manifestURL: String { fileURL("manifest.json") }

    /// The peer gateway's URL of a file of the title (`relative` as in the plan, each part percent-encoded).
    public func fileURL(_ relative: String) -> String {
        let parts = [id] + relative.split(separator: "/").map(String.init)
        let encoded = parts.map { $0.addingPercentEncoding(withAllowedCharacters: Self.pathAllowed) ?? $0 }
        return "\(url)/titles/" + encoded.joined(separator: "/")
    }

    /// The header that presents the secret; sent to the peer's URLs only.
    public var authorization: Header { Header(name: "Authorization", value: "Bearer \(secret)") }

    /// What is wrong with it, or nil: an http(s) base URL with a host and no path, query or credentials, an id
    /// the gateway's paths can carry, a secret.
    public var problem: String? {
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme), parsed.host?.isEmpty == false
        else { return "--from-peer '\(url.prefix(200))' is not an http(s) URL of a gateway" }
        guard parsed.path.isEmpty, parsed.query == nil, parsed.fragment == nil, parsed.user == nil else {
            return "--from-peer takes the gateway's base URL (such as http://box-a:8480), not a path"
        }
        guard TitlePath.isSafe(id, for: .served), !id.contains("/") else {
            return "'\(id.prefix(200))' is not a title id the peer's gateway can serve"
        }
        guard !secret.isEmpty else { return "the peer secret is empty" }
        return nil
    }

    private static let pathAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#;"))
}
