import Foundation
import Testing

@testable import StowageProtocol

/// Numbers from outside the box: checked where parsed, named when refused, and never a trap in the arithmetic the
/// box does on them.
@Suite("Outside numbers")
struct OutsideNumberTests {
    @Test func aNumberOutsideItsRangeIsRefusedNamingTheField() throws {
        let field = OutsideNumbers.bitsPerSecond("BANDWIDTH")
        #expect(try field.parse("2000000") == 2_000_000)
        for text in ["9000000000000000000", "6148914690666666667", "99999999999999999999999", "-1", "1e9", "", "0x10"] {
            #expect(throws: NumberRangeError.self, "\(text)") { try field.parse(text) }
        }
        do {
            _ = try field.parse("9000000000000000000")
            Issue.record("no error")
        } catch {
            #expect(error.field == "BANDWIDTH" && error.value == "9000000000000000000")
            #expect("\(error)".contains("BANDWIDTH '9000000000000000000' is out of range (0…1000000000000 bit/s)"))
        }
        #expect(throws: NumberRangeError.self) { try OutsideNumbers.seconds("duration").parse("nan") }
        #expect(throws: NumberRangeError.self) { try OutsideNumbers.seconds("duration").parse("inf") }
        #expect(try OutsideNumbers.bytes("size").checkIfPresent(nil) == nil)
        #expect(throws: NumberRangeError.self) { try OutsideNumbers.bytes("size").checkIfPresent(Int64.max) }
    }

    @Test func estimatesAndSumsHoldInsteadOfTrapping() {
        #expect(OutsideNumbers.estimate(bitsPerSecond: 8_000_000, seconds: 10) == 10_000_000)
        #expect(OutsideNumbers.estimate(bitsPerSecond: .max, seconds: 1e300) == OutsideNumbers.maxBytes)
        #expect(OutsideNumbers.estimate(bitsPerSecond: 1_000, seconds: .infinity) == 0)
        #expect(OutsideNumbers.estimate(bitsPerSecond: -5, seconds: 10) == 0)
        #expect(OutsideNumbers.sum([Int64.max, Int64.max, 5]) == Int64.max)
        #expect(OutsideNumbers.sum([3, -7, 4]) == 7, "a negative term counts as none")
        #expect(Int64.max.saturatingAdding(1) == .max && Int64.min.saturatingSubtracting(1) == .min)
    }

    @Test func aPlanWithAnImpossibleNumberDoesNotDecode() throws {
        var plan = ResolvedPlan(
            masterPlaylist: "#EXTM3U\n", renditions: [],
            resources: [
                PlannedResource(
                    kind: .segment, rendition: 0, url: "https://cdn.example/s.ts", rangeOffset: nil, rangeLength: nil,
                    localPath: "video/s.ts", container: .mpegTS, encrypted: false, duration: 4)
            ], bytesEstimate: 1_000)
        #expect(try JSONDecoder().decode(ResolvedPlan.self, from: JSONEncoder().encode(plan)) == plan)
        plan.bytesEstimate = .max
        #expect(plan.numberProblem?.field == "bytesEstimate")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ResolvedPlan.self, from: JSONEncoder().encode(plan))
        }
        plan.bytesEstimate = 1_000
        plan.resources[0].rangeLength = .max
        #expect(plan.numberProblem?.field == "resources[].rangeLength")
        plan.resources[0].rangeLength = nil
        plan.resources[0].duration = -1
        #expect(plan.numberProblem?.field == "resources[].duration")
    }

    @Test func aPeersManifestWithAnImpossibleSizeHasAProblem() {
        var manifest = PeerManifestTests.manifest()
        manifest.bytesEstimate = 9_223_372_036_854_775_807
        #expect(manifest.problem?.contains("bytesEstimate") == true, "\(manifest.problem ?? "no problem")")
        manifest = PeerManifestTests.manifest()
        manifest.files[0].size = -1
        #expect(manifest.problem?.contains("files[].size") == true, "\(manifest.problem ?? "no problem")")
    }

    @Test func aSubmitWithAnImpossibleNumberIsRefused() {
        var submit = SubmitRequest(
            url: "https://cdn.example/master.m3u8", name: nil, priority: 0, headers: [], selection: Selection())
        #expect(submit.numberProblem == nil)
        submit.selection.bitrate = 99_999_999_999_999_999
        #expect(submit.numberProblem?.field == "bitrate")
        submit.selection.bitrate = 3_000_000
        submit.terms = RequestedTerms(kind: .rental, rentalSeconds: .infinity)
        #expect(submit.numberProblem?.field == "rental")
    }
}
