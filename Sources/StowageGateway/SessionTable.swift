import StowageProtocol

/// The `/login` sessions (the `stowage_session` cookie): the admin's and the devices' in two tables with their
/// own caps, so no number of device logins can push the admin out, and each session carries the CSRF token its
/// page sends back with state-changing requests. A session ends ``lifetime`` seconds after it opened; that is
/// checked on every use, not only when the table is pruned.
struct SessionTable: Sendable {
    /// One login session.
    struct Session: Sendable, Equatable {
        var principal: Principal
        /// A device's secret or signed URL, checked again (through the cache) on every use; nil for the admin.
        var credential: DeviceCredential?
        /// The token state-changing requests of this session must carry (`X-CSRF-Token`).
        var csrfToken: String
        var openedAt: Double
    }

    /// Seconds a session lasts: 12 hours.
    let lifetime: Double
    /// Most sessions kept per table: a few for the admin, many for the devices of a venue.
    let maxAdminSessions: Int
    let maxDeviceSessions: Int
    private var admin: [String: Session] = [:]
    private var devices: [String: Session] = [:]

    init(lifetime: Double = 12 * 3600, maxAdminSessions: Int = 64, maxDeviceSessions: Int = 10_000) {
        self.lifetime = lifetime
        self.maxAdminSessions = maxAdminSessions
        self.maxDeviceSessions = maxDeviceSessions
    }

    /// The live session `id` at `now`; an expired one is dropped.
    mutating func session(_ id: String, now: Double) -> Session? {
        for admin in [true, false] {
            guard let session = table(admin)[id] else { continue }
            if now - session.openedAt <= lifetime && session.openedAt <= now { return session }
            update(admin) { $0[id] = nil }
            return nil
        }
        return nil
    }

    /// Opens a session; when its table is full the oldest tenth of that same table goes.
    mutating func open(_ id: String, _ session: Session, now: Double) {
        let isAdmin = session.principal.isAdmin
        let cap = isAdmin ? maxAdminSessions : maxDeviceSessions, lifetime = lifetime
        update(isAdmin) { table in
            if table.count >= cap { table = table.filter { now - $0.value.openedAt <= lifetime } }
            if table.count >= cap {
                // A tenth at once: a flood of logins costs one sort per thousand, not one scan per login.
                let excess = table.count - cap + max(1, cap / 10)
                for (old, _) in table.sorted(by: { $0.value.openedAt < $1.value.openedAt }).prefix(excess) {
                    table[old] = nil
                }
            }
            table[id] = session
        }
    }

    /// Ends a session.
    mutating func close(_ id: String) {
        admin[id] = nil
        devices[id] = nil
    }

    /// Sessions kept: (admin, devices).
    var counts: (admin: Int, devices: Int) { (admin.count, devices.count) }

    private func table(_ isAdmin: Bool) -> [String: Session] { isAdmin ? admin : devices }

    private mutating func update(_ isAdmin: Bool, _ change: (inout [String: Session]) -> Void) {
        if isAdmin { change(&admin) } else { change(&devices) }
    }
}
