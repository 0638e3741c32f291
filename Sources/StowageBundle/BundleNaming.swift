import StowageProtocol

/// The local paths of an imported plan, held to this box's own naming: the names the planners give (HLS
/// `OfflinePlanner` and `LiveRecorder`, `DASHPlanner`'s `LocalTrack`, the scheduler's poster), not whatever the
/// bundle says. The offline playlists are written at the renditions' paths when a title is verified or repaired,
/// and the gateway serves the files at the resources' paths, so a path this box would not name could write outside
/// the title's folder or over another title's playlist. Any such path refuses the import (``BundleProblem/Code/path``).
///
/// The names, as the planners make them:
/// - a rendition's folder: one label of `[a-z0-9-]` (HLS: `video`, `audio-en`, `subtitles-fr-2`, `iframes`), or
///   `p<period>/<label>` for DASH (`p0/video-0-1-en`);
/// - an HLS rendition's playlist: `<folder>/index.m3u8`; a DASH rendition's path is its folder;
/// - a resource: `<its rendition's folder>/<file>`, the file a name of `[a-z0-9-]` with one extension
///   (`seg-000001.ts`, `init-0.mp4`, `iframe-000003.ts`, `media.mp4`); the poster: `poster.<ext>` at the top;
/// - the entry: `master.m3u8` (HLS with a master playlist) or `manifest.mpd` (DASH);
/// - every file the bundle lists is one of those paths.
public enum BundleNaming {
    /// The entry playlist of an HLS title with a master playlist, and the DASH manifest (`DASHPlanner`).
    public static let masterName = "master.m3u8"
    public static let dashManifestName = "manifest.mpd"
    static let hlsPlaylistName = "index.m3u8"
    /// Longest label the planners make (24 characters of language plus the kind and indexes), with room to spare.
    static let maxLabel = 64

    /// The first path of `manifest` this box would not name, or nil.
    public static func problem(_ manifest: BundleManifest) -> BundleProblem? {
        let plan = manifest.plan
        let dash = plan.manifestName != nil
        if let name = plan.manifestName, name != dashManifestName {
            return refuse("plan.manifestName", name, "is not \(dashManifestName)")
        }
        var folders: [String] = []
        for (i, rendition) in plan.renditions.enumerated() {
            let folder: String
            if dash {
                folder = rendition.localPath
                guard isDASHFolder(folder) else {
                    return refuse("plan.renditions[\(i)].localPath", folder, "is not p<period>/<label>")
                }
            } else {
                let suffix = "/" + hlsPlaylistName
                guard rendition.localPath.hasSuffix(suffix) else {
                    return refuse("plan.renditions[\(i)].localPath", rendition.localPath, "is not <label>/index.m3u8")
                }
                folder = String(rendition.localPath.dropLast(suffix.count))
                guard isLabel(folder) else {
                    return refuse("plan.renditions[\(i)].localPath", rendition.localPath, "is not <label>/index.m3u8")
                }
            }
            guard !folders.contains(folder) else {
                return refuse("plan.renditions[\(i)].localPath", rendition.localPath, "is another rendition's folder")
            }
            folders.append(folder)
        }
        var named = Set<String>()
        for (i, resource) in plan.resources.enumerated() {
            let path = resource.localPath
            if resource.kind == .poster {
                guard path.hasPrefix("poster."), isExtension(path.dropFirst("poster.".count)) else {
                    return refuse("plan.resources[\(i)].localPath", path, "is not poster.<ext>")
                }
            } else {
                guard folders.indices.contains(resource.rendition) else {
                    return refuse("plan.resources[\(i)].rendition", "\(resource.rendition)", "is not a rendition")
                }
                let folder = folders[resource.rendition] + "/"
                guard path.hasPrefix(folder), isFileName(path.dropFirst(folder.count)) else {
                    return refuse("plan.resources[\(i)].localPath", path, "is not a file name in \(folder)")
                }
            }
            named.insert(path)
        }
        if dash {
            named.insert(dashManifestName)
        } else {
            for rendition in plan.renditions { named.insert(rendition.localPath) }
            if !plan.masterPlaylist.isEmpty { named.insert(masterName) }
        }
        if let file = manifest.files.first(where: { !named.contains($0.path) }) {
            return refuse("files[].path", file.path, "is no file of the plan")
        }
        return nil
    }

    private static func refuse(_ field: String, _ value: String, _ why: String) -> BundleProblem {
        BundleProblem(
            .path, file: BundleLayout.manifestName,
            "\(field) '\(value.prefix(200))' \(why): this box names its files itself (docs/bundles.md)")
    }

    /// `[a-z0-9-]`, 1 to ``maxLabel`` characters, not starting with `-`.
    static func isLabel<S: StringProtocol>(_ text: S) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maxLabel, bytes[0] != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { isLower($0) || isDigit($0) || $0 == UInt8(ascii: "-") }
    }

    /// `p<digits>/<label>`.
    static func isDASHFolder(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].hasPrefix("p"), parts[0].count > 1, parts[0].count <= 10 else { return false }
        return parts[0].dropFirst().utf8.allSatisfy(isDigit) && isLabel(parts[1])
    }

    /// `<label>.<ext>`.
    static func isFileName<S: StringProtocol>(_ text: S) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && isLabel(parts[0]) && isExtension(parts[1])
    }

    /// `[a-z0-9]`, 1 to 8 characters.
    static func isExtension<S: StringProtocol>(_ text: S) -> Bool {
        (1...8).contains(text.utf8.count) && text.utf8.allSatisfy { isLower($0) || isDigit($0) }
    }

    private static func isLower(_ b: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) }
    private static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
}
