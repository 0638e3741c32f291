import Foundation
import StowageProtocol
import Testing

/// The bandwidth schedule as a pure value: its rates by wall-clock time, bytes per second with binary suffixes (as
/// every rate).
@Suite("Bandwidth schedule")
struct BandwidthScheduleTests {
    @Test func theFirstOpenWindowDecidesAndStarCoversTheRest() throws {
        let s = try BandwidthSchedule(parsing: "01:00-06:00=unlimited,*=2M")
        #expect(s.bytesPerSecond(at: at("2026-11-26T00:59:59Z"), in: utc) == 2_097_152)
        #expect(s.bytesPerSecond(at: at("2026-11-26T01:00:00Z"), in: utc) == nil)
        #expect(s.bytesPerSecond(at: at("2026-11-26T05:59:59Z"), in: utc) == nil)
        #expect(s.bytesPerSecond(at: at("2026-11-26T06:00:00Z"), in: utc) == 2_097_152)
        #expect(s.description == "01:00-06:00=unlimited,*=2097152")
        let layered = try BandwidthSchedule(parsing: "02:00-03:00=5K,01:00-06:00=1G,*=0")
        #expect(layered.bytesPerSecond(at: at("2026-11-26T02:30:00Z"), in: utc) == 5_120, "listed first")
        #expect(layered.bytesPerSecond(at: at("2026-11-26T04:00:00Z"), in: utc) == 1_073_741_824)
        #expect(layered.bytesPerSecond(at: at("2026-11-26T12:00:00Z"), in: utc) == nil, "0 is unlimited")
    }

    @Test func withoutStarOtherTimesAreUnlimitedAndWindowsFollowTheLocalClock() throws {
        let s = try BandwidthSchedule(parsing: "22:00-06:00=250k")
        #expect(s.bytesPerSecond(at: at("2026-11-26T12:00:00Z"), in: utc) == nil)
        #expect(s.bytesPerSecond(at: at("2026-11-26T23:00:00Z"), in: utc) == 256_000)
        #expect(s.bytesPerSecond(at: at("2026-11-26T21:30:00Z"), in: berlin) == 256_000, "22:30 CET")
    }

    @Test(arguments: [
        ("01:00-06:00=fast", ScheduleSpecError.Code.malformedRate),
        ("01:00-06:00=2X", .malformedRate),
        ("01:00-06:00=2Mb", .malformedRate),
        ("01:00-06:00=-5", .malformedRate),
        ("*=1M,*=2M", .malformedEntry),
        ("01:00-06:00", .malformedEntry),
        ("", .malformedEntry),
        ("25:00-06:00=1M", .malformedWindow),
        ("*=99999999999G", .malformedRate),
    ])
    func refusesWhatIsNotASchedule(_ text: String, _ code: ScheduleSpecError.Code) {
        #expect {
            try BandwidthSchedule(parsing: text)
        } throws: { error in
            (error as? ScheduleSpecError)?.code == code && (error as? ScheduleSpecError)?.text == text
        }
    }
}
