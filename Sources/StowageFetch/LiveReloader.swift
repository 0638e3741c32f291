import Foundation
import StowageDASH
import StowageProtocol

/// A recording's reload task: the live playlist or MPD fetched again. For a live MPD the origin's clock comes
/// with it (``LiveMPDClock``): which segments exist is the origin's time, not the box's.
public struct LiveReloader: Sendable {
    let fetcher: HTTPFetcher

    public init(fetcher: HTTPFetcher) { self.fetcher = fetcher }

    public func reload(_ work: ReloadWork) async throws(TaskFailure) -> ReloadReport {
        let sent = Date().timeIntervalSince1970
        let (bytes, url, date) = try await fetcher.fetchDated(work.url, headers: work.headers)
        let received = Date().timeIntervalSince1970
        let text = String(decoding: bytes, as: UTF8.self)
        guard DASHResolver.isMPD(text), let mpd = try? MPD(liveData: Data(bytes), url: url), mpd.type == .dynamic
        else { return ReloadReport(text: text, url: url) }
        let now = await LiveMPDClock(fetcher: fetcher).originNow(
            mpd: mpd, dateHeader: date, sentAt: sent, receivedAt: received, headers: work.headers)
        return ReloadReport(text: text, url: url, originTime: now)
    }
}
