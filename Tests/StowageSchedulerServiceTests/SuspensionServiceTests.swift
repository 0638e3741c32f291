import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// An operator's moves through the service: what the lifecycle refuses reaches the client as `refused` with the
/// reason, and a resume of a wait its owner still holds is refused with when it ends.
@Suite struct SuspensionServiceTests {
    func submit(_ d: ServiceDriver, _ name: String = "show") throws -> String {
        let request = SubmitRequest(
            url: "http://origin.test/\(name)/master.m3u8", name: nil, priority: 0, headers: [],
            selection: Selection())
        guard case .submitted(let token) = try d.request(.submit(request)) else { throw DriverError("no token") }
        return token
    }

    func refusal(_ reply: ReplyBody) -> TitleError? {
        if case .error(let error) = reply { return error }
        return nil
    }

    @Test func aResumeOfAClosedWindowsWaitIsRefusedWithWhenItOpens() throws {
        let fill = try FillSchedule(parsing: "09:00-10:00")
        let d = try ServiceDriver {
            $0.fillWindow = fill
            $0.timeZone = TimeZone(identifier: "UTC")!
        }
        d.register("dl", .download)
        let token = try submit(d)
        #expect(try d.status(token).suspendedReason == .window)
        let error = refusal(try d.request(.resume(token: token)))
        #expect(error?.code == .refused)
        #expect(error?.message.contains("waits for its fill window to open") == true, "\(String(describing: error))")
        #expect(error?.message.contains("2027-01-15T09:00:00Z") == true, "\(String(describing: error))")
        #expect(error?.message.contains("--now") == true)
        #expect(try d.tasks(for: "dl").isEmpty)
        d.advance(3600)
        #expect(try d.tasks(for: "dl").count == 1, "the window opened: it starts by itself")
    }

    @Test func movesTheStateDoesNotTakeAreRefusedNeverInternal() throws {
        let d = try ServiceDriver()
        d.register("dl", .download)
        let token = try submit(d)
        let resume = refusal(try d.request(.resume(token: token)))
        #expect(resume?.code == .refused)
        #expect(resume?.message == "title \(token) is requested: only suspended or failed titles can be resumed")
        let stop = refusal(try d.request(.stop(token: token)))
        #expect(stop?.code == .refused)
        #expect(stop?.message.hasSuffix("only a recording in progress can be stopped") == true)
        _ = try d.request(.cancel(token: token))
        let pause = refusal(try d.request(.pause(token: token)))
        #expect(pause?.code == .refused)
        #expect(pause?.message == "title \(token) is canceled: only unfinished titles can be paused")
    }
}
