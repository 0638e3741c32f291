import Foundation
import StowageProtocol
import StowageRuntime

/// Follows titles through scheduler events and draws a progress bar per title (bytes, rate, ETA).
/// On a terminal it redraws in place; otherwise it prints a line at most every few seconds per title.
struct ProgressWatcher {
    enum Output { case standardOutput, standardError }
    let client: SchedulerClient
    let tokens: [String]
    let json: Bool
    let output: Output

    /// Runs until every title is final; returns their last status.
    func run() throws -> [String: TitleStatus] {
        var latest: [String: TitleStatus] = [:]
        var rates: [String: RateMeter] = [:]
        let handle: FileHandle = output == .standardOutput ? .standardOutput : .standardError
        let tty = isatty(output == .standardOutput ? 1 : 2) == 1
        var drawnLines = 0
        var lastPrinted: [String: Double] = [:]
        var lastSubscribe = 0.0
        var lastAnswer = monotonic()
        while true {
            if monotonic() - lastSubscribe > 1 {
                try client.subscribe(tokens: tokens)
                lastSubscribe = monotonic()
            }
            if let event = try client.nextEvent(timeout: 0.5) {
                lastAnswer = monotonic()
                let status = event.status
                guard tokens.contains(status.token) else { continue }
                latest[status.token] = status
                rates[status.token, default: RateMeter()].add(bytes: status.bytesDownloaded, at: monotonic())
                if !json, event.kind == "evicted", let detail = event.detail {
                    // Said as a line of its own, above the bars, so it stays on the screen.
                    if tty, drawnLines > 0 { handle.write(Data("\u{1B}[\(drawnLines)A\u{1B}[J".utf8)) }
                    drawnLines = 0
                    handle.write(Data("\(status.token): \(detail)\n".utf8))
                }
                if json {
                    printJSONLine(event, handle)
                } else if tty {
                    var text = drawnLines > 0 ? "\u{1B}[\(drawnLines)A" : ""
                    for token in tokens {
                        guard let s = latest[token] else { continue }
                        text += "\u{1B}[2K" + TitleFormatter.bar(s, rate: rates[token]?.rate ?? 0) + "\n"
                    }
                    drawnLines = tokens.filter { latest[$0] != nil }.count
                    if tokens.count > 1 {
                        let rate = rates.values.reduce(0) { $0 + $1.rate }
                        text += "\u{1B}[2K" + TitleFormatter.total(Array(latest.values), rate: rate) + "\n"
                        drawnLines += 1
                    }
                    handle.write(Data(text.utf8))
                } else if status.state.isFinal || monotonic() - (lastPrinted[status.token] ?? 0) > 2
                    || event.kind == "state"
                {
                    lastPrinted[status.token] = monotonic()
                    handle.write(Data((TitleFormatter.bar(status, rate: rates[status.token]?.rate ?? 0) + "\n").utf8))
                    if tokens.count > 1, monotonic() - (lastPrinted["*total"] ?? 0) > 2 {
                        lastPrinted["*total"] = monotonic()
                        let rate = rates.values.reduce(0) { $0 + $1.rate }
                        let total = TitleFormatter.total(Array(latest.values), rate: rate)
                        handle.write(Data((total + "\n").utf8))
                    }
                }
            } else if monotonic() - lastAnswer > 10 {
                // No events for a while: ask directly (the scheduler may have restarted).
                for token in tokens {
                    if let s = try? client.request(.status(token: token), timeout: 5) {
                        latest[token] = s
                    }
                }
                lastAnswer = monotonic()
            }
            if tokens.allSatisfy({ latest[$0]?.state.isFinal == true }) { return latest }
        }
    }

    private func printJSONLine(_ event: TitleEvent, _ handle: FileHandle) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(event) { handle.write(data + Data("\n".utf8)) }
    }
}

/// Bytes per second over the last few seconds.
struct RateMeter {
    private var samples: [(t: Double, bytes: Int64)] = []

    mutating func add(bytes: Int64, at t: Double) {
        samples.append((t, bytes))
        samples.removeAll { t - $0.t > 5 }
    }

    var rate: Double {
        guard let first = samples.first, let last = samples.last, last.t - first.t > 0.2 else { return 0 }
        return max(0, Double(last.bytes - first.bytes) / (last.t - first.t))
    }
}
