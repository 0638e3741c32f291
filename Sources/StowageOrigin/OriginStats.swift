import Foundation
import Synchronization

/// What the origin itself observed: concurrent connections, requests in flight, and how many distinct
/// titles (first path component) were being served at once. Served as JSON at `/__stats`.
public final class OriginStats: Sendable {
    public struct Snapshot: Codable, Sendable {
        public var connections = 0
        public var maxConnections = 0
        public var inFlight = 0
        public var maxInFlight = 0
        public var maxTitlesAtOnce = 0
        public var requests = 0
        public var faults: [String: Int] = [:]
    }
    private struct State {
        var s = Snapshot()
        var titles: [String: Int] = [:]
    }
    private let box = Mutex(State())

    func connectionOpened() {
        box.withLock { state in
            state.s.connections += 1
            state.s.maxConnections = max(state.s.maxConnections, state.s.connections)
        }
    }

    func connectionClosed() { box.withLock { $0.s.connections -= 1 } }

    /// `title` is nil for playlists: titles being resolved hold no download slot.
    func requestStarted(title: String?) {
        box.withLock { state in
            state.s.requests += 1
            state.s.inFlight += 1
            state.s.maxInFlight = max(state.s.maxInFlight, state.s.inFlight)
            guard let title else { return }
            state.titles[title, default: 0] += 1
            state.s.maxTitlesAtOnce = max(state.s.maxTitlesAtOnce, state.titles.count)
        }
    }

    func requestEnded(title: String?) {
        box.withLock { state in
            state.s.inFlight -= 1
            guard let title else { return }
            state.titles[title, default: 1] -= 1
            if state.titles[title] == 0 { state.titles[title] = nil }
        }
    }

    func fault(_ kind: String) { box.withLock { $0.s.faults[kind, default: 0] += 1 } }

    public var snapshot: Snapshot { box.withLock { $0.s } }

    /// The first path component of a media request, which the chaos test uses as a title's folder.
    static func title(of uri: String) -> String? {
        let path = uri.split(separator: "?").first ?? ""
        guard !path.hasSuffix(".m3u8") else { return nil }
        return path.split(separator: "/").first.map(String.init) ?? ""
    }
}
