import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// Fill windows and the bandwidth schedule through the service, on the manual clock: its wall clock starts at
/// 2027-01-15T08:00:00Z; the box's window is 09:00-10:00 UTC.
@Suite struct FillWindowServiceTests {
    static func driver(
        window: String = "09:00-10:00", bandwidth: String? = nil
    ) throws -> ServiceDriver {
        let fill = try FillSchedule(parsing: window)
        let schedule = try bandwidth.map { try BandwidthSchedule(parsing: $0) }
        return try ServiceDriver {
            $0.fillWindow = fill
            $0.bandwidthSchedule = schedule
            $0.timeZone = TimeZone(identifier: "UTC")!
        }
    }

    func submit(_ d: ServiceDriver, _ name: String = "show", window: String? = nil, now: Bool = false) throws -> String
    {
        var request = SubmitRequest(
            url: "http://origin.test/\(name)/master.m3u8", name: nil, priority: 0, headers: [],
            selection: Selection())
        request.window = window
        request.now = now ? true : nil
        guard case .submitted(let token) = try d.request(.submit(request)) else { throw DriverError("no token") }
        return token
    }

    func canceled(_ d: ServiceDriver, _ worker: String) throws -> [String] {
        try d.outbox.take(worker).filter { $0.command == .cancelTask }.map {
            try FrameCodec.body(CancelTask.self, from: $0).taskID
        }
    }

    @Test func aTitleSubmittedOutsideTheWindowWaitsUnfetchedUntilItOpens() throws {
        let d = try Self.driver()
        d.register("dl", .download)
        let token = try submit(d)
        let waiting = try d.status(token)
        #expect(waiting.state == .suspended)
        #expect(waiting.suspendedReason == .window)
        #expect(waiting.nextWindowAt == "2027-01-15T09:00:00Z")
        #expect(try d.tasks(for: "dl").isEmpty, "not even its playlist is fetched")
        d.advance(3599)
        #expect(try d.tasks(for: "dl").isEmpty, "08:59:59: still closed")
        d.advance(1)
        let resolve = try d.task(for: "dl")
        guard case .resolve = resolve.work else { throw DriverError("not a resolve: \(resolve.work)") }
        let open = try d.status(token)
        #expect(open.state == .requested)
        #expect(open.suspendedReason == nil && open.nextWindowAt == nil)
    }

    @Test func aDownloadUnderWayStopsWhenTheWindowClosesAndGoesOnWhenItOpens() throws {
        let d = try Self.driver()
        d.clock.stepWall(7140)  // 09:59: open for one more minute (less than a fetch lease lasts)
        let token = try d.licensedTitle(files: 3)
        let fetches = try d.tasks(for: "dl")
        #expect(!fetches.isEmpty)
        #expect(try d.state(token) == .downloading)
        d.advance(59)
        #expect(try d.state(token) == .downloading, "09:59:59")
        d.advance(1)
        let closed = try d.status(token)
        #expect(closed.state == .suspended && closed.suspendedReason == .window)
        #expect(closed.nextWindowAt == "2027-01-16T09:00:00Z")
        #expect(Set(try canceled(d, "dl")) == Set(fetches.map(\.taskID)), "work in flight called back at once")
        #expect(try d.tasks(for: "dl").isEmpty)
        // The next morning (a step of the wall clock moves the window as much as time does).
        d.clock.stepWall(23 * 3600)
        d.advance(1)
        let again = try d.tasks(for: "dl")
        #expect(again.count == fetches.count, "the same files go out again, from the bytes on disk")
        #expect(try d.state(token) == .downloading)
        for task in again { try d.fetchedAll("dl", task) }
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .completed)
    }

    @Test func nowAndATitlesOwnWindowOverrideTheBoxs() throws {
        let d = try Self.driver()
        d.register("dl", .download)
        let urgent = try submit(d, "a", now: true)
        #expect(try d.state(urgent) == .requested)
        #expect(try d.task(for: "dl").token == urgent, "--now fetches at 08:00, outside the box's window")
        let own = try submit(d, "b", window: "07:30-08:30")
        #expect(try d.state(own) == .requested, "its own window is open")
        #expect(try d.task(for: "dl").token == own)
        #expect(try d.store.title(own)?.fillWindow == "07:30-08:30")
        let late = try submit(d, "c", window: "12:00-13:00")
        #expect(try d.status(late).nextWindowAt == "2027-01-15T12:00:00Z")
        #expect(try d.tasks(for: "dl").isEmpty)
        // `submit --now` of a title waiting for its window releases it: the same URL is the same title.
        #expect(try submit(d, "c", now: true) == late)
        #expect(try d.state(late) == .requested)
        #expect(try d.task(for: "dl").token == late)
    }

    @Test func aBadWindowIsRefusedNamingIt() throws {
        let d = try Self.driver()
        var request = SubmitRequest(
            url: "http://origin.test/other.m3u8", name: nil, priority: 0, headers: [], selection: Selection())
        request.window = "9-10"
        guard case .error(let error) = try d.request(.submit(request)) else { throw DriverError("accepted") }
        #expect(error.code == .refused && error.message.contains("'9-10'"), "\(error.message)")
    }

    @Test func aPausedTitleStaysPausedWhenItsWindowOpens() throws {
        let d = try Self.driver()
        d.register("dl", .download)
        let token = try submit(d)
        _ = try d.request(.pause(token: token))
        #expect(try d.status(token).suspendedReason == .paused)
        d.advance(3600)
        #expect(try d.status(token).suspendedReason == .paused)
        #expect(try d.tasks(for: "dl").isEmpty)
        // Resumed by the operator inside the window, it goes on.
        _ = try d.request(.resume(token: token))
        #expect(try d.tasks(for: "dl").count == 1)
    }

    @Test func aResumeOutsideTheWindowWaitsForItAndAStepBackHoldsAgain() throws {
        let d = try Self.driver()
        d.register("dl", .download)
        let token = try submit(d)
        _ = try d.request(.pause(token: token))
        _ = try d.request(.resume(token: token))
        #expect(try d.status(token).suspendedReason == .window, "resumed at 08:00, it waits for 09:00")
        d.advance(3600)
        #expect(try d.tasks(for: "dl").count == 1)
        #expect(try d.state(token) == .requested)
        d.clock.stepWall(-1800)  // the wall clock is set back to 08:30
        d.tick()
        d.advance(1)
        #expect(try d.status(token).suspendedReason == .window)
        #expect(try d.status(token).nextWindowAt == "2027-01-15T09:00:00Z")
    }

    @Test func theBandwidthScheduleSetsTheCapUnlessTheOperatorSetOne() throws {
        let d = try Self.driver(window: "00:00-24:00", bandwidth: "09:00-10:00=unlimited,*=2000000")
        func cap() throws -> Int64? {
            guard case .limits(let l) = try d.request(.limits(nil)) else { throw DriverError("no limits") }
            return l.bandwidth
        }
        func shares() throws -> [Int64?] {
            try d.outbox.take("dl").filter { $0.command == .limits }.map {
                try FrameCodec.body(WorkerLimits.self, from: $0).bytesPerSecond
            }
        }
        d.register("dl", .download)
        d.advance(1)
        #expect(try cap() == 2_000_000)
        #expect(try shares().last == 2_000_000)
        d.advance(3600)  // 09:00
        #expect(try cap() == 0)
        #expect(try shares().last == .some(nil), "the worker is told the cap is lifted")
        _ = try d.request(.limits(LimitsInfo(bandwidth: 700_000)))
        d.advance(3600)  // 10:00: the schedule says 2000000, the operator said 700000
        #expect(try cap() == 700_000)
        _ = try d.request(.limits(LimitsInfo(reset: true)))
        #expect(try cap() == 2_000_000, "after --reset the schedule applies again")
    }
}
