import Foundation
import HTTPTypes
import StowageProtocol

/// What a request under `/titles/<key>/` asks for: the one classification of those paths, made by the router
/// (``Gateway/title(_:identity:context:zeroCopy:)`` answers each endpoint with its own handler) and by the hot
/// path (``Gateway/hotAnswer(_:)``, which answers only a ``Endpoint/file(relative:)``), so the two can never
/// disagree about which endpoint a path is.
///
/// A device endpoint under a title is one ``Endpoint`` case, recognised in ``init(method:path:)``, plus its
/// handler; the hot path leaves any case but a file to the router.
struct TitleRoute: Equatable, Sendable {
    /// The endpoints under a title, each with its parameters typed.
    enum Endpoint: Equatable, Sendable {
        /// `/titles/<key>` or `/titles/<key>/`: a redirect to the entry playlist.
        case entry
        /// `POST /titles/<key>/clearkey`: a W3C Clear Key license.
        case clearKey
        /// `/titles/<key>/manifest.json`: the title's plan, for peer boxes.
        case peerManifest
        /// `/titles/<key>/keys/N`: content key N.
        case contentKey(index: Int)
        /// `/titles/<key>/subtitles/<lang>.vtt` or `.srt`: the subtitles in `lang` as one WebVTT or SubRip file.
        case subtitles(language: String, srt: Bool)
        /// `/titles/<key>/master-audio-<lang>.m3u8`: the master narrowed to the audio rendition in `lang`.
        case audioMaster(language: String)
        /// Any other `/titles/<key>/<path>`: the title's file at `relative` (checked by
        /// ``TitlePath/relative(rawPath:)``, never empty).
        case file(relative: String)
        /// A path that names no endpoint, refused once the title is known (an unknown title is 404 whatever follows
        /// its key).
        case invalid(Invalid)
    }

    /// Why a path under a known title names no endpoint.
    enum Invalid: Equatable, Sendable {
        /// `keys/` followed by something that is no key number.
        case keyIndex
        /// A path that leaves the title's folder (or names nothing in it).
        case outsideFolder

        /// The answer: 404 for a key that is not one, 400 for a path out of the folder.
        var error: GatewayError {
            switch self {
            case .keyIndex: GatewayError.notFound("no such key")
            case .outsideFolder: GatewayError(.badRequest, .refused, "that path leaves the title's folder")
            }
        }
    }

    /// The title's key as the path spells it (percent-encoded as it came): links under the title start with it.
    let rawKey: String
    /// The key decoded (a token or a `--id`), or nil when it can be no title's: 404 `no title <rawKey>`.
    let key: String?
    let endpoint: Endpoint

    /// The file name of a title's manifest for peers.
    static let peerManifestName = "manifest.json"
    /// The name a Clear Key license is POSTed to.
    static let clearKeyName = "clearkey"
    /// The folder content keys are under.
    static let keysPrefix = "keys/"
    /// Where a subtitle rendition is served as one file: `subtitles/<lang>.vtt` or `subtitles/<lang>.srt`.
    static let subtitlesPrefix = "subtitles/"
    /// The master narrowed to one audio language: `master-audio-<lang>.m3u8` (beside the master, so the
    /// renditions' relative URIs resolve as in it).
    static let audioMasterPrefix = "master-audio-"

    /// A language tag as the play page names it (letters, digits, `-`; at most 35 characters), or nil.
    static func language(_ text: Substring) -> String? {
        guard !text.isEmpty, text.count <= 35,
            text.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") })
        else { return nil }
        return String(text)
    }

    /// Classifies `path` (no query), a path under `/titles/`, asked with `method`. Only a Clear Key license takes
    /// POST; any other POST is 405 before anything is looked up (``methodRefusal(_:)``).
    init(method: HTTPRequest.Method, path: String) {
        let (raw, remainder) = Self.parts(path)
        rawKey = String(raw)
        key = Self.decodedKey(raw)
        if remainder.isEmpty {
            endpoint = .entry
        } else if method == .post, remainder == Self.clearKeyName {
            endpoint = .clearKey
        } else if remainder == Self.peerManifestName {
            endpoint = .peerManifest
        } else if remainder.hasPrefix(Self.keysPrefix) {
            let index = Int(remainder.dropFirst(Self.keysPrefix.count))
            endpoint = index.map { $0 >= 0 ? .contentKey(index: $0) : .invalid(.keyIndex) } ?? .invalid(.keyIndex)
        } else if remainder.hasPrefix(Self.subtitlesPrefix), remainder.hasSuffix(".vtt") || remainder.hasSuffix(".srt"),
            let language = Self.language(remainder.dropFirst(Self.subtitlesPrefix.count).dropLast(4))
        {
            endpoint = .subtitles(language: language, srt: remainder.hasSuffix(".srt"))
        } else if remainder.hasPrefix(Self.audioMasterPrefix), remainder.hasSuffix(".m3u8"),
            let language = Self.language(remainder.dropFirst(Self.audioMasterPrefix.count).dropLast(5))
        {
            endpoint = .audioMaster(language: language)
        } else if let relative = TitlePath.relative(rawPath: remainder), !relative.isEmpty {
            endpoint = .file(relative: relative)
        } else {
            endpoint = .invalid(.outsideFolder)
        }
    }

    /// The refusal of `method` for this route, or nil when the endpoint takes it: POST only for a Clear Key
    /// license, which takes nothing else (its GET is a file of that name); GET and HEAD for every other one.
    func methodRefusal(_ method: HTTPRequest.Method) -> GatewayError? {
        let allowed = endpoint == .clearKey ? method == .post : method == .get || method == .head
        return allowed ? nil : GatewayError(.methodNotAllowed, .refused, "only GET and HEAD (POST for clearkey)")
    }

    /// The raw key and what follows its slash (empty when nothing does) of a `/titles/<key>/<remainder>` path.
    static func parts(_ path: String) -> (rawKey: Substring, remainder: String) {
        let rest = path.dropFirst("/titles/".count)
        guard let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) else { return (rest, "") }
        return (rest[..<slash], String(rest[rest.index(after: slash)...]))
    }

    /// A raw key decoded, when it can name a title: not empty, a safe name once decoded (no `..`, no empty part).
    private static func decodedKey(_ raw: Substring) -> String? {
        let text = String(raw)
        guard let key = raw.utf8.contains(UInt8(ascii: "%")) ? text.removingPercentEncoding : text, !key.isEmpty,
            TitlePath.relative(rawPath: key) == key
        else { return nil }
        return key
    }
}
