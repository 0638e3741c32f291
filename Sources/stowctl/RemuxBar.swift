import Foundation
import StowageOfflineCopy

/// The progress of a remux on standard error, as the other commands draw theirs: a bar of the media written,
/// bytes, rate and ETA. Redrawn in place on a terminal; otherwise a line every two seconds. Nothing with `--json`.
struct RemuxBar {
    let label: String
    let json: Bool
    private var rate = RateMeter()
    private let tty = isatty(2) == 1
    private let started = ContinuousClock.now
    private var lastLine: ContinuousClock.Instant?
    private var last: RemuxProgress?

    init(label: String, json: Bool) {
        self.label = label
        self.json = json
    }

    mutating func show(_ progress: RemuxProgress) {
        last = progress
        let now = ContinuousClock.now
        rate.add(bytes: progress.bytes, at: Self.seconds(now - started))
        guard !json else { return }
        if !tty, let lastLine, now - lastLine < .seconds(2) { return }
        lastLine = now
        FileHandle.standardError.write(Data(((tty ? "\r\u{1B}[2K" : "") + line(progress) + (tty ? "" : "\n")).utf8))
    }

    /// Ends the bar's line on a terminal.
    func end() {
        guard !json, tty, last != nil else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }

    /// `remux 3f2a9c1d… [#####.....]  45%  12.3 MB  2.1 MB/s  ETA 0:13`
    func line(_ p: RemuxProgress, width: Int = 24) -> String {
        let fraction = p.fraction ?? 0
        let filled = Int(TitleFormatter.whole(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: max(0, width - filled))
        let elapsed = Self.seconds(ContinuousClock.now - started)
        var eta = "--:--"
        if fraction >= 1 {
            eta = "0:00"
        } else if fraction > 0, elapsed > 0 {
            eta = TitleFormatter.duration(elapsed / fraction - elapsed)
        }
        return "remux \(label.prefix(20)) [\(bar)] "
            + String(format: "%3d%%", Int(TitleFormatter.whole(fraction * 100)))
            + "  \(TitleFormatter.bytes(p.bytes))  "
            + "\(TitleFormatter.bytes(TitleFormatter.whole(rate.rate)))/s  ETA \(eta)"
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
