import Foundation

/// How long a segment the recording listed stays fetchable (DASH-IF IOP v4.3 §4.3): until its end has left the
/// time-shift window, `availabilityStartTime + Period@start + segment end + timeShiftBufferDepth` on the origin's
/// clock. A 404 before then is an origin that is late (a CDN not filled yet, a packager behind its MPD), not a
/// segment that is gone: it is asked for again, and only becomes a gap once it has left the window.
extension LiveDASHRendition {
    /// How long a segment is retried when the MPD gives no window (`timeShiftBufferDepth` absent: availability
    /// without end), seconds after its end: a recording must not wait for ever on a segment an origin lost.
    public static let retrySpanWithoutWindow: Double = 30

    /// Origin-clock seconds since 1970 until which the segment of local timeline line `line` (`<S t d/>`, as
    /// ``LiveDASHRecorder`` wrote it) can still come; nil when the state or the line does not say.
    public func availableUntil(line: String) -> Double? {
        guard let ast = availabilityStartTime, let timescale, timescale > 0,
            let t = Self.value("t", in: line), let d = Self.value("d", in: line)
        else { return nil }
        let offset = presentationTimeOffset ?? 0
        let end = (Double(t) - Double(offset) + Double(d)) / Double(timescale)
        return ast + (periodStart ?? 0) + end + (timeShiftBufferDepth ?? Self.retrySpanWithoutWindow)
    }

    /// Seconds the segment of `line` may still be retried for, the box's clock reading `boxNow` (seconds since
    /// 1970) corrected by ``clockOffset``; nil when it has left the window (or nothing says when it does).
    public func retryTimeLeft(line: String, boxNow: Double) -> Double? {
        guard let until = availableUntil(line: line) else { return nil }
        let left = until - (boxNow + (clockOffset ?? 0))
        return left > 0 ? left : nil
    }

    /// The local timeline line of media file `localPath` (`<folder>/seg-<n>.<ext>`, the n-th line), nil for any
    /// other file.
    public static func line(of localPath: String, in lines: [String]) -> String? {
        let name = (localPath as NSString).lastPathComponent
        guard name.hasPrefix("seg-"), let n = Int(name.dropFirst(4).prefix { $0.isNumber }), n >= 1,
            lines.indices.contains(n - 1)
        else { return nil }
        return lines[n - 1]
    }

    /// The unsigned integer attribute `name` of an `<S …/>` line.
    static func value(_ name: String, in line: String) -> UInt64? {
        guard let start = line.range(of: " \(name)=\"") else { return nil }
        return UInt64(line[start.upperBound...].prefix { $0.isNumber })
    }
}
