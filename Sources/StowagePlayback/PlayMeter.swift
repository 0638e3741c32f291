import Foundation
import Synchronization

/// Accounts the media actually served — segment durations, in proportion for byte ranges — until it is
/// reported to the scheduler (`ClientOperation.played`).
public final class PlayMeter: Sendable {
    private let durations: [String: Double]
    /// Seconds served since the last ``drain()``.
    private let pending = Mutex(0.0)

    /// `durations`: `/<media playlist folder>/<segment>` -> seconds (see ``segmentDurations(playlists:)``).
    public init(durations: [String: Double]) { self.durations = durations }

    /// A meter for the offline copy in `directory`, or for a streaming plan's playlists when given.
    public convenience init(directory: URL, playlists: [String: String]? = nil) {
        self.init(durations: Self.segmentDurations(playlists: playlists ?? Self.playlists(in: directory)))
    }

    /// `sent` bytes of `path` (`/video/0001.ts`), a file of `size` bytes, were served.
    public func served(_ path: String, sent: Int, size: Int) {
        guard let duration = durations[path], size > 0 else { return }
        pending.withLock { $0 += duration * Double(sent) / Double(size) }
    }

    /// Whether `path` is a media segment this meter counts.
    public func isMedia(_ path: String) -> Bool { durations[path] != nil }

    /// The seconds served since the last call, and starts again from zero.
    public func drain() -> Double {
        pending.withLock { pending in
            defer { pending = 0 }
            return pending
        }
    }

    /// The offline media playlists of a stored title (folder/index.m3u8 -> text).
    public static func playlists(in directory: URL) -> [String: String] {
        var out: [String: String] = [:]
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            let path = "\(folder)/index.m3u8"
            if let text = try? String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8) {
                out[path] = text
            }
        }
        return out
    }

    /// `/<media playlist folder>/<segment>` -> EXTINF duration, from the offline media playlists.
    public static func segmentDurations(playlists: [String: String]) -> [String: Double] {
        var out: [String: Double] = [:]
        // Media time is counted once: on the video rendition when there is one (audio and subtitles run beside it).
        let media = playlists.filter { $0.key.hasSuffix("/index.m3u8") }
        let folders = Set(media.keys.map { String($0.dropLast("/index.m3u8".count)) })
        let counted = folders.contains("video") ? ["video"] : Array(folders)
        for folder in counted {
            guard let text = media["\(folder)/index.m3u8"] else { continue }
            var duration: Double?
            for line in text.split(separator: "\n") {
                if line.hasPrefix("#EXTINF:") {
                    duration = Double(line.dropFirst(8).split(separator: ",").first ?? "")
                } else if !line.hasPrefix("#"), let d = duration {
                    out["/\(folder)/\(line)"] = d
                    duration = nil
                }
            }
        }
        return out
    }
}
