import Foundation
import StowageDASH
import StowageProtocol

/// Reads a live origin's clock for a reloaded MPD (DASH-IF IOP §4.7): the MPD's `UTCTiming` schemes in the order it
/// lists them (`http-xsdate`, `http-iso`, `http-head`, `direct`; NTP skipped), else the `Date` header of the MPD's
/// own answer. A box whose clock is minutes off then still asks only for segments that exist.
///
/// The origin's time is measured as an offset (``OriginClock``) against the worker's wall clock around the exchange
/// and applied at the moment the report leaves, so the scheduler needs no clock of its own for availability.
struct LiveMPDClock {
    let fetcher: HTTPFetcher

    /// The origin's time now, from `mpd` (fetched between `sentAt` and `receivedAt`, answered with `dateHeader`);
    /// nil when neither a `UTCTiming` nor the `Date` header gave one.
    func originNow(mpd: MPD, dateHeader: String?, sentAt: Double, receivedAt: Double, headers: [Header]) async
        -> Double?
    {
        for timing in mpd.live?.utcTimings ?? [] where timing.isUsable {
            if timing.scheme == .direct, let time = timing.time(body: nil, dateHeader: nil) {
                return OriginClock(originTime: time, sentAt: receivedAt, receivedAt: receivedAt).now(local: wall())
            }
            for url in timing.urls(against: mpd.url) {
                let sent = wall()
                do {
                    let (bytes, _, date) = try await fetcher.fetchDated(url, headers: headers)
                    let received = wall()
                    guard let time = timing.time(body: Data(bytes), dateHeader: date) else { continue }
                    return OriginClock(originTime: time, sentAt: sent, receivedAt: received).now(local: wall())
                } catch {
                    continue
                }
            }
        }
        guard let time = dateHeader.flatMap(HTTPDate.seconds) else { return nil }
        // The Date header is whole seconds, truncated: the origin's clock is up to a second later than it says.
        return OriginClock(originTime: time, sentAt: sentAt, receivedAt: receivedAt).now(local: wall())
    }

    /// The worker's wall clock: only ever compared with itself around one exchange.
    private func wall() -> Double { Date().timeIntervalSince1970 }
}
