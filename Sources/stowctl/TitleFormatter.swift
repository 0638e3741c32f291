import Foundation
import StowageProtocol

/// Human-readable renderings of titles.
enum TitleFormatter {
    static func bytes(_ n: Int64?) -> String {
        guard let n else { return "?" }
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// A number a server sent (a rate, a count of seconds) as a whole number for display: held to ±9e18, NaN as 0,
    /// so no answer can trap the conversion.
    static func whole(_ value: Double) -> Int64 {
        value.isNaN ? 0 : Int64(min(max(value, -9e18), 9e18).rounded(.towardZero))
    }

    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return "--:--" }
        let s = Int(seconds.rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }

    /// `name  [#####.....]  45%  12.3 MB / 40.0 MB  2.1 MB/s  ETA 0:13  downloading`
    static func bar(_ s: TitleStatus, rate: Double, width: Int = 24) -> String {
        let filled = Int(whole(min(max(s.progress, 0), 1) * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: max(0, width - filled))
        let percent = String(format: "%3d%%", Int(whole(min(max(s.progress, 0), 1) * 100)))
        var eta = "--:--"
        if rate > 0, let expected = s.bytesExpected, expected > s.bytesDownloaded {
            eta = duration(Double(expected - s.bytesDownloaded) / rate)
        } else if s.state == .completed {
            eta = "0:00"
        }
        let label = (s.name ?? s.token).prefix(20).padding(toLength: 20, withPad: " ", startingAt: 0)
        var line =
            "\(label) [\(bar)] \(percent)  \(bytes(s.bytesDownloaded)) / \(bytes(s.bytesExpected))  "
            + "\(bytes(whole(rate)))/s  ETA \(eta)  \(s.state.rawValue)"
        if let e = s.error { line += "  [\(e.code.rawValue)] \(e.message)" }
        return line
    }

    /// The aggregate of several titles: bytes, combined rate, ETA of the whole set.
    static func total(_ all: [TitleStatus], rate: Double) -> String {
        let done = OutsideNumbers.sum(all.map(\.bytesDownloaded))
        let expected = OutsideNumbers.sum(all.map { max($0.bytesExpected ?? 0, $0.bytesDownloaded) })
        let finished = all.filter { $0.state.isFinal }.count
        let eta =
            rate > 0 && expected > done
            ? duration(Double(expected - done) / rate) : (finished == all.count ? "0:00" : "--:--")
        return "TOTAL \(finished)/\(all.count) ended  \(bytes(done)) / \(bytes(expected))  "
            + "\(bytes(whole(rate)))/s  ETA \(eta)"
    }

    static func line(_ s: TitleStatus) -> String {
        let percent = String(format: "%5.1f%%", s.progress * 100)
        let state = s.state.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
        return "\(s.token)  \(state) \(percent)  \(s.segmentsDone)/\(s.segmentsTotal) files  "
            + "\(bytes(s.bytesDownloaded))  \(s.name ?? s.url)"
    }

    /// Why a title waits: ` (network: waiting for host:port since …, next probe at …)`, ` (queued: 2nd)`.
    static func stateDetail(_ s: TitleStatus) -> String {
        if let reason = s.suspendedReason {
            var text = " (\(reason.rawValue)"
            if let host = s.waitingFor { text += ": waiting for \(host) to answer" }
            if let since = s.suspendedSince { text += ", since \(since)" }
            if let next = s.nextProbeAt { text += ", next probe \(next)" }
            if let next = s.nextWindowAt { text += ", window opens \(next)" }
            return text + ")"
        }
        if let host = s.waitingFor {
            return " (retrying: \(host) did not answer\(s.nextProbeAt.map { ", next attempt \($0)" } ?? ""))"
        }
        if let place = s.queuePosition { return " (waiting for a download slot: \(place) in the queue)" }
        if s.state == .recording {
            var text = " (\(duration(s.recordedSeconds ?? 0)) recorded"
            if let since = s.stalledSince { text += ", the playlist stopped updating at \(since)" }
            return text + ")"
        }
        return ""
    }

    static func details(_ s: TitleStatus) -> String {
        let license =
            s.license.map {
                "\($0.kind.rawValue), expires \($0.expiresAt ?? "never")\($0.expired ? " (EXPIRED)" : "")"
            } ?? "-"
        var lines = [
            "token:      \(s.token)",
            "url:        \(s.url)",
            "name:       \(s.name ?? "-")",
            "state:      \(s.state.rawValue)\(stateDetail(s))",
            "progress:   \(String(format: "%.1f%%", s.progress * 100))  (\(s.segmentsDone)/\(s.segmentsTotal) files, "
                + "\(bytes(s.bytesDownloaded)) of \(bytes(s.bytesExpected)))",
            "requested:  \(s.requestedAt ?? "-")",
            "started:    \(s.startedAt ?? "-")",
            "ended:      \(s.endedAt ?? "-")",
            "license:    \(license)",
            "playable:   \(s.playableOffline ? "yes" : "no")"
                + (s.notPlayableReason.map { " (\($0.code.rawValue): \($0.message))" } ?? ""),
        ]
        if let p = s.localPlaylist { lines.append("playlist:   \(p)") }
        if let p = s.protection {
            let systems = p.systems.map(\.name).joined(separator: ", ")
            lines.append(
                "protected:  \(p.scheme ?? "encrypted")\(systems.isEmpty ? "" : " by \(systems)")"
                    + (p.deviceOnly ? " (device-only DRM)" : "")
                    + (p.kids.isEmpty ? "" : ", key IDs \(p.kids.joined(separator: " "))"))
        }
        if let peer = s.filesFromPeer, peer > 0 {
            lines.append("sources:    \(peer) files from the peer box, \(s.filesFromOrigin ?? 0) from the origin")
        }
        if let pathways = s.pathways, let pathway = s.pathway {
            lines.append("pathway:    \(pathway) (tried in order: \(pathways.joined(separator: ", ")))")
        }
        if let recorded = s.recordedSeconds { lines.append("recorded:   \(duration(recorded))") }
        for gap in s.gaps ?? [] {
            lines.append("gap:        \(duration(gap.from)) - \(duration(gap.to)) (left the live window unfetched)")
        }
        if let e = s.error { lines.append("error:      [\(e.code.rawValue)] \(e.message)") }
        return lines.joined(separator: "\n")
    }
}
