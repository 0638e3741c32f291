import Foundation
import StowageProtocol
import Testing

/// A submit of a URL whose title is already there (#47, "a first hour without traps"): without options or with the
/// same ones it is that title (its token back); with other options it is refused naming the title and what differs,
/// never silently answered with the old title.
@Suite struct ResubmitServiceTests {
    static let url = "http://origin.test/show/master.m3u8"

    func submit(_ d: ServiceDriver, _ change: (inout SubmitRequest) -> Void = { _ in }) throws -> ReplyBody {
        var request = SubmitRequest(url: Self.url, name: nil, priority: 0, headers: [], selection: Selection())
        change(&request)
        return try d.request(.submit(request))
    }

    func token(_ reply: ReplyBody) throws -> String {
        guard case .submitted(let token) = reply else { throw DriverError("submit answered \(reply)") }
        return token
    }

    func refusal(_ reply: ReplyBody) throws -> String {
        guard case .error(let error) = reply, error.code == .refused else { throw DriverError("not refused: \(reply)") }
        return error.message
    }

    @Test func theSameURLWithoutOptionsOrWithTheSameOnesIsTheSameTitle() throws {
        let d = try ServiceDriver()
        let first = try token(
            submit(d) {
                $0.name = "Lecture"
                $0.selection.bitrate = 800_000
            })
        #expect(try token(submit(d)) == first, "no options: the title's token back")
        #expect(try token(submit(d) { $0.selection.bitrate = 800_000 }) == first)
        #expect(try token(submit(d) { $0.now = true }) == first, "`--now` again is allowed")
        #expect(try d.store.titles().count == 1)
    }

    @Test func otherOptionsAreRefusedNamingTheTitleAndWhatDiffers() throws {
        let d = try ServiceDriver()
        let first = try token(
            submit(d) {
                $0.name = "Lecture"
                $0.id = "lecture-1"
                $0.selection.bitrate = 800_000
            })
        let bitrate = try refusal(submit(d) { $0.selection.bitrate = 2_000_000 })
        #expect(bitrate.contains("is already title \(first) ('Lecture')"), "\(bitrate)")
        #expect(bitrate.contains("--bitrate 2000000, not 800000"), "\(bitrate)")
        #expect(bitrate.contains("stowctl delete \(first)"), "\(bitrate)")
        #expect(try refusal(submit(d) { $0.name = "Other" }).contains("--name 'Other', not 'Lecture'"))
        #expect(try refusal(submit(d) { $0.id = "lecture-2" }).contains("--id 'lecture-2', not 'lecture-1'"))
        #expect(try refusal(submit(d) { $0.selection.audio = ["fr"] }).contains("--audio fr, not unset"))
        #expect(try refusal(submit(d) { $0.selection.iframes = true }).contains("--iframes on, not off"))
        #expect(try d.store.titles().count == 1, "nothing was made of the refused submits")
        #expect(try d.store.title(first)?.selection.bitrate == 800_000, "the title kept its options")
    }
}
