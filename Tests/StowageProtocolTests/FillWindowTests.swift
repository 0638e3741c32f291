import Foundation
import StowageProtocol
import Testing

let utc = TimeZone(identifier: "UTC")!
let berlin = TimeZone(identifier: "Europe/Berlin")!

/// An instant written in ISO 8601 (a literal of the test: a typo stops the run at once).
func at(_ text: String) -> Date {
    // swift-format-ignore: NeverUseForceTry
    try! Date(text, strategy: .iso8601)
}

/// Fill windows as pure values: reading `HH:MM-HH:MM`, open or closed at a wall-clock time to the millisecond,
/// midnight crossing, and daylight-saving changes in Europe/Berlin.
@Suite("Fill windows")
struct FillWindowTests {

    @Test func readsAndWritesTheWindowText() throws {
        #expect(try FillWindow(parsing: "1:00-06:00").description == "01:00-06:00")
        #expect(try FillWindow(parsing: " 22:00-06:30 ").description == "22:00-06:30")
        #expect(try FillWindow(parsing: "22:00-06:00").crossesMidnight)
        #expect(try !FillWindow(parsing: "01:00-06:00").crossesMidnight)
        #expect(try FillWindow(parsing: "00:00-24:00").isAlwaysOpen)
        #expect(try FillWindow(parsing: "18:00-24:00").end == 1440)
    }

    @Test(arguments: [
        "25:00-06:00", "01:00-01:00", "0100-0600", "01:00-06:00-07:00", "", "01:60-02:00", "24:00-01:00",
        "01:00", "a1:00-02:00", "01:00-06:0", "-01:00-02:00",
    ])
    func refusesWhatIsNotAWindowAndNamesTheText(_ text: String) {
        #expect {
            try FillWindow(parsing: text)
        } throws: { error in
            guard let error = error as? ScheduleSpecError else { return false }
            return error.code == .malformedWindow && error.text == text && error.description.contains("'\(text)'")
        }
    }

    @Test func isOpenFromItsStartToJustBeforeItsEndToTheMillisecond() throws {
        let w = try FillWindow(parsing: "01:00-06:00")
        #expect(!w.isOpen(at: at("2026-11-26T00:59:59Z") + 0.999, in: utc))
        #expect(w.isOpen(at: at("2026-11-26T01:00:00Z"), in: utc))
        #expect(w.isOpen(at: at("2026-11-26T05:59:59Z") + 0.999, in: utc))
        #expect(!w.isOpen(at: at("2026-11-26T06:00:00Z"), in: utc))
        // The same instant is another local time elsewhere: 01:30 UTC is 02:30 in Berlin (CET), 20:30 in New York.
        #expect(w.isOpen(at: at("2026-11-26T01:30:00Z"), in: berlin))
        #expect(!w.isOpen(at: at("2026-11-26T01:30:00Z"), in: TimeZone(identifier: "America/New_York")!))
    }

    @Test func aWindowAcrossMidnightIsOpenOnBothSidesOfIt() throws {
        let w = try FillWindow(parsing: "22:00-06:00")
        #expect(w.isOpen(at: at("2026-11-26T23:59:59Z"), in: utc))
        #expect(w.isOpen(at: at("2026-11-27T00:00:00Z"), in: utc))
        #expect(w.isOpen(at: at("2026-11-27T05:59:59Z"), in: utc))
        #expect(!w.isOpen(at: at("2026-11-27T12:00:00Z"), in: utc))
        #expect(!w.isOpen(at: at("2026-11-26T21:59:59Z") + 0.999, in: utc))
        #expect(w.nextOpening(after: at("2026-11-27T12:00:00Z"), in: utc) == (at("2026-11-27T22:00:00Z")))
        #expect(w.nextClosing(after: at("2026-11-26T23:00:00Z"), in: utc) == (at("2026-11-27T06:00:00Z")))
        #expect(w.nextOpening(after: at("2026-11-27T22:00:00Z"), in: utc) == (at("2026-11-28T22:00:00Z")))
    }

    @Test func anAllDayWindowNeverOpensOrCloses() throws {
        let w = try FillWindow(parsing: "00:00-24:00")
        #expect(w.isOpen(at: at("2026-11-26T23:59:59Z"), in: utc))
        #expect(w.nextOpening(after: at("2026-11-26T12:00:00Z"), in: utc) == nil)
        #expect(w.nextClosing(after: at("2026-11-26T12:00:00Z"), in: utc) == nil)
    }

    /// Berlin springs forward on 29 March 2026: 02:00 CET (01:00 UTC) becomes 03:00 CEST.
    @Test func theSpringChangeShortensTheNightAndSkippedTimesOpenAtTheFirstTimeAfter() throws {
        let night = try FillWindow(parsing: "01:00-06:00")
        #expect(night.nextOpening(after: at("2026-03-28T12:00:00Z"), in: berlin) == (at("2026-03-29T00:00:00Z")))
        #expect(night.nextClosing(after: at("2026-03-29T00:00:00Z"), in: berlin) == (at("2026-03-29T04:00:00Z")))
        #expect(night.isOpen(at: at("2026-03-29T03:59:59Z") + 0.999, in: berlin), "05:59:59.999 CEST")
        #expect(!night.isOpen(at: at("2026-03-29T04:00:00Z"), in: berlin), "06:00 CEST")
        // 02:30 does not exist that night: the window opens when the clock jumps to 03:00.
        let late = try FillWindow(parsing: "02:30-04:00")
        #expect(!late.isOpen(at: at("2026-03-29T00:59:59Z") + 0.999, in: berlin), "01:59:59.999 CET")
        #expect(late.isOpen(at: at("2026-03-29T01:00:00Z"), in: berlin), "03:00 CEST")
        #expect(late.nextOpening(after: at("2026-03-28T12:00:00Z"), in: berlin) == (at("2026-03-29T01:00:00Z")))
        // A window wholly inside the skipped hour does not open that night: the next opening is the night after.
        let skipped = try FillWindow(parsing: "02:10-02:40")
        #expect(skipped.nextOpening(after: at("2026-03-28T12:00:00Z"), in: berlin) == (at("2026-03-30T00:10:00Z")))
    }

    /// Berlin falls back on 25 October 2026: 03:00 CEST (01:00 UTC) becomes 02:00 CET.
    @Test func theAutumnChangeLengthensTheNight() throws {
        let night = try FillWindow(parsing: "01:00-06:00")
        let opens = try #require(night.nextOpening(after: at("2026-10-24T12:00:00Z"), in: berlin))
        let closes = try #require(night.nextClosing(after: opens, in: berlin))
        #expect(opens == (at("2026-10-24T23:00:00Z")), "01:00 CEST")
        #expect(closes == (at("2026-10-25T05:00:00Z")), "06:00 CET")
        #expect(closes.timeIntervalSince(opens) == 6 * 3600, "five hours of local time last six")
        #expect(night.isOpen(at: at("2026-10-25T01:30:00Z"), in: berlin), "02:30 CET, the second time")
    }

    @Test func aScheduleIsOpenWhenAnyWindowIsAndTouchingWindowsCloseAsOne() throws {
        let s = try FillSchedule(parsing: "01:00-03:00,03:00-05:00,13:00-14:00")
        #expect(s.description == "01:00-03:00,03:00-05:00,13:00-14:00")
        #expect(s.isOpen(at: at("2026-11-26T04:00:00Z"), in: utc))
        #expect(!s.isOpen(at: at("2026-11-26T12:00:00Z"), in: utc))
        #expect(s.nextClosing(after: at("2026-11-26T01:30:00Z"), in: utc) == (at("2026-11-26T05:00:00Z")))
        #expect(s.nextOpening(after: at("2026-11-26T07:00:00Z"), in: utc) == (at("2026-11-26T13:00:00Z")))
        #expect(s.nextOpening(after: at("2026-11-26T15:00:00Z"), in: utc) == (at("2026-11-27T01:00:00Z")))
        let repeated = try FillSchedule(parsing: ["01:00-02:00", "03:00-04:00,05:00-06:00"])
        #expect(repeated.windows.count == 3)
    }

    @Test func aBadWindowInAScheduleIsNamed() {
        #expect {
            try FillSchedule(parsing: "01:00-06:00,7-8")
        } throws: { error in
            guard let error = error as? ScheduleSpecError else { return false }
            return error.code == .malformedWindow && error.text == "01:00-06:00,7-8" && error.reason.contains("'7-8'")
        }
    }
}
