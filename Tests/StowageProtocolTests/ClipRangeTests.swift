import StowageProtocol
import Testing

/// `--range START-END`: the forms operators write, and a clear refusal naming what is wrong.
@Suite("Clip ranges")
struct ClipRangeTests {
    @Test(arguments: [
        ("00:10:00-00:25:00", 600.0, 1500.0), ("10:00-25:00", 600, 1500), ("600-1500", 600, 1500),
        ("10-20", 10, 20), ("1:02:03.5-1:02:04", 3723.5, 3724), (" 0-0.5 ", 0, 0.5),
    ])
    func acceptedForms(text: String, from: Double, to: Double) throws {
        #expect(try ClipRange(parsing: text) == ClipRange(from: from, to: to))
    }

    @Test(arguments: [
        ("", ClipRangeError.Code.malformed, "is empty"), ("10", .malformed, "is not START-END"),
        ("10-", .malformed, "is not START-END"), ("-5-10", .malformed, "is not START-END"),
        ("a-10", .malformed, "start that 'a' is not a number"), ("10:75-20:00", .malformed, "below 60"),
        ("1:2:3:4-5", .malformed, "is not [[H:]M:]S"), ("20-10", .empty, "end must come after its start"),
        ("10-10", .empty, "end must come after its start"), ("1e3-2e3", .malformed, "is not a number"),
    ])
    func refusedForms(text: String, code: ClipRangeError.Code, says: String) {
        #expect {
            try ClipRange(parsing: text)
        } throws: { error in
            guard let e = error as? ClipRangeError else { return false }
            return e.code == code && e.description.contains(says) && e.description.hasPrefix("--range '")
        }
    }

    @Test func describesItselfAsSeconds() {
        #expect(ClipRange(from: 600, to: 1500).description == "600-1500")
        #expect(ClipRange(from: 10.5, to: 12).description == "10.5-12")
    }
}
