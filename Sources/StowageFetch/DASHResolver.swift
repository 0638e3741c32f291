import Foundation
import StowageDASH
import StowageProtocol

/// Resolves a DASH title: the MPD at its URL, the selection Period by Period, each chosen Representation's
/// segments (fetching its `sidx` first when the MPD gives a SegmentBase index range), and the offline plan.
public struct DASHResolver: Sendable {
    let fetcher: HTTPFetcher

    public init(fetcher: HTTPFetcher) { self.fetcher = fetcher }

    /// Whether a fetched document is an MPD rather than an HLS playlist: by its first element (an `.mpd`
    /// URL serving a playlist is read as what it is).
    public static func isMPD(_ text: String) -> Bool {
        let head = text.prefix(2_048).drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if head.hasPrefix("#EXTM3U") { return false }
        return head.hasPrefix("<") && head.contains("<MPD")
    }

    func resolve(text: String, url: String, work: ResolveWork) async throws(TaskFailure) -> ResolvedPlan {
        do {
            let mpd = try MPD(text: text, url: url)
            var inputs: [DASHPlanner.Input] = []
            for choice in try RepresentationSelector.select(mpd, work.selection) {
                let period = mpd.periods[choice.period]
                for track in choice.tracks {
                    let representation = period.adaptationSets[track.adaptationSet].representations[
                        track.representation]
                    let segments: RepresentationSegments
                    switch try SegmentAddresser.address(representation, in: period) {
                    case .segments(let found): segments = found
                    case .needsIndex(let request): segments = try await index(request, work: work)
                    }
                    inputs.append(DASHPlanner.Input(period: choice.period, track: track, segments: segments))
                }
            }
            var plan = try DASHPlanner.plan(mpd: mpd, inputs: inputs, range: work.range)
            plan.pathways = DASHPathways.named(mpd, plan: plan)
            return plan
        } catch {
            throw Self.failure(error, url: url)
        }
    }

    /// A recording (`submit --record`) of an MPD: a dynamic one is planned by ``LiveDASHPlanner`` (its segments
    /// come reload by reload); a static one is refused, there being nothing live to record.
    func resolveLive(text: String, url: String, work: ResolveWork) throws(TaskFailure) -> ResolvedPlan {
        do {
            let mpd = try MPD(liveData: Data(text.utf8), url: url)
            guard mpd.type == .dynamic else {
                throw TaskFailure(
                    code: .playlist,
                    message: "\(url): a static MPD has nothing live to record: submit it without --record",
                    retryable: false)
            }
            return try LiveDASHPlanner.plan(mpd: mpd, selection: work.selection).plan
        } catch {
            throw Self.failure(error, url: url)
        }
    }

    /// What a resolve reports for `error`: an MPD the parser refuses as `playlist` (`refused` for a URI it will not
    /// fetch), a fetch's failure as it is.
    static func failure(_ error: any Error, url: String) -> TaskFailure {
        switch error {
        case let error as DASHError:
            TaskFailure(
                code: error.code == .refusedURI ? .refused : .playlist, message: "\(url): \(error.description)",
                retryable: false)
        case let failure as TaskFailure: failure
        default: TaskFailure(code: .internal, message: "\(error)", retryable: false)
        }
    }

    /// The segments of a SegmentBase Representation: its `sidx` fetched as a byte range, each BaseURL in turn.
    private func index(_ request: IndexRequest, work: ResolveWork) async throws -> RepresentationSegments {
        guard let range = request.index.range else {
            throw DASHError(.missingAttribute, element: "SegmentBase", attribute: "indexRange", "no index range")
        }
        var firstFailure: TaskFailure?
        for url in request.index.urls {
            do {
                let (bytes, _) = try await fetcher.fetchBytes(
                    url, headers: work.headers, range: range.offset...(range.end - 1))
                return try request.segments(fromSidx: bytes)
            } catch let failure as TaskFailure {
                guard failure.isSourceFailure else { throw failure }
                firstFailure = firstFailure ?? failure
            }
        }
        throw firstFailure ?? TaskFailure(code: .playlist, message: "no URL for the segment index", retryable: false)
    }
}
