import Synchronization

/// How many `/events` streams each credential holds at once. A stream costs the gateway a listener on the
/// scheduler's events and a connection for as long as the client keeps it; a device's library page needs one
/// (a few with several tabs), so one device opening many more must not use up the gateway's memory and
/// connections: the stream past the limit is refused with 429 and a message that says why.
final class EventStreamPlaces: Sendable {
    /// The documented limit: streams each device (or the admin, or a peer) may hold at once.
    static let perCredential = 4

    /// One stream's place, given back once (``release()`` may be called again: nothing more happens).
    final class Place: Sendable {
        private let held = Mutex(true)
        private let giveBack: @Sendable () -> Void

        init(giveBack: @escaping @Sendable () -> Void) { self.giveBack = giveBack }

        /// Gives the place back, the first time only.
        func release() {
            let first = held.withLock { held in
                defer { held = false }
                return held
            }
            if first { giveBack() }
        }
    }

    private let limit: Int
    private let streams = Mutex<[String: Int]>([:])

    init(limit: Int = EventStreamPlaces.perCredential) { self.limit = limit }

    /// A place for one more stream of `principal`, or 429 `refused` when it holds ``perCredential`` already.
    func take(_ principal: Principal) throws -> Place {
        let key = Self.key(principal)
        let taken = streams.withLock { streams in
            guard streams[key, default: 0] < limit else { return false }
            streams[key, default: 0] += 1
            return true
        }
        guard taken else {
            throw GatewayError(
                .tooManyRequests, .refused,
                "\(principal.name) already holds \(limit) event streams (/events), the most one credential may: "
                    + "close one (a library page's tab) first")
        }
        return Place { [self] in
            streams.withLock { streams in
                streams[key, default: 1] -= 1
                if streams[key] == 0 { streams[key] = nil }
            }
        }
    }

    /// How many streams `principal` holds.
    func held(by principal: Principal) -> Int { streams.withLock { $0[Self.key(principal)] ?? 0 } }

    /// Devices, peers and the admin count apart (a device may be named `admin`).
    private static func key(_ principal: Principal) -> String {
        switch principal {
        case .admin: "admin"
        case .device(let name): "device:" + name
        case .peer(let name): "peer:" + name
        }
    }
}
