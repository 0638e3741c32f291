import Foundation
import Testing

@testable import StowageDASH

/// Malformed, hostile and unsupported MPDs: clear errors naming the element and attribute, never a trap.
@Suite("DASH errors")
struct ErrorTests {
    func error(_ text: String) -> DASHError? { Fixtures.error { _ = try Fixtures.mpd(text) } }

    func addressingError(_ text: String) -> DASHError? {
        Fixtures.error { _ = try Fixtures.segments(try Fixtures.mpd(text)) }
    }

    @Test func missingBandwidthIsNamed() {
        let text = Fixtures.templateNoTimeline.replacingOccurrences(of: " bandwidth=\"500000\"", with: "")
        let error = error(text)
        #expect(error?.code == .missingAttribute)
        #expect(error?.element == "Representation" && error?.attribute == "bandwidth")
        #expect(error?.message.contains("Representation@bandwidth") == true)
        #expect(error?.description.hasPrefix("MPD Representation@bandwidth:") == true)
    }

    @Test func aBandwidthNoStreamHasIsNamed() {
        for huge in ["9000000000000000000", "6148914690666666667", "99999999999999999999"] {
            let text = Fixtures.templateNoTimeline.replacingOccurrences(
                of: " bandwidth=\"500000\"", with: " bandwidth=\"\(huge)\"")
            let error = error(text)
            #expect(error?.code == .invalidAttribute, "\(huge)")
            #expect(error?.element == "Representation" && error?.attribute == "bandwidth", "\(huge)")
            #expect(error?.message.contains("1000000000000 bit/s") == true, "\(error?.message ?? "no error")")
        }
    }

    @Test func dynamicMPDsAreRefused() {
        let error = error(
            Fixtures.templateNoTimeline.replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\""))
        #expect(error?.code == .dynamic)
        #expect(error?.message.contains("MPD@type='dynamic'") == true)
        #expect(
            self.error(Fixtures.singleFile.replacingOccurrences(of: "type=\"static\"", with: "type=\"live\""))?.code
                == .invalidAttribute)
    }

    @Test func notAnMPDOrNotXML() {
        #expect(error("<html><body>hi</body></html>")?.code == .notMPD)
        #expect(error("#EXTM3U\n#EXT-X-VERSION:3\n")?.code == .malformed)
        #expect(error("<MPD type=\"static\"><Period>")?.code == .malformed)
        #expect(error("<MPD type=\"static\"></MPD>")?.message.contains("no Period") == true)
        let entities = "<?xml version=\"1.0\"?><!DOCTYPE MPD [<!ENTITY a \"aaaa\">]><MPD>&a;</MPD>"
        #expect(error(entities)?.code == .malformed)
    }

    @Test func hostileRepeatCountsAndDurationsAreRefusedNotTrapped() {
        let huge = Fixtures.templateTimeline(media: "s-$Number$.m4s")
            .replacingOccurrences(of: "r=\"3\"", with: "r=\"9223372036854775806\"")
        let repeatError = addressingError(huge)
        #expect(repeatError?.code == .tooLarge)
        #expect(repeatError?.element == "S" && repeatError?.attribute == "r")
        let overflowing = Fixtures.templateTimeline(media: "s-$Number$.m4s")
            .replacingOccurrences(of: "<S t=\"0\"", with: "<S t=\"18446744073709551000\"")
        #expect(addressingError(overflowing)?.code == .invalidAttribute)
        let zero = Fixtures.templateTimeline(media: "s-$Number$.m4s").replacingOccurrences(
            of: "d=\"12800\"", with: "d=\"0\"")
        #expect(error(zero)?.message.contains("S@d") == true)
        let negative = Fixtures.templateTimeline(media: "s-$Number$.m4s").replacingOccurrences(
            of: "r=\"3\"", with: "r=\"-5\"")
        #expect(error(negative)?.attribute == "r")
        let tiny = Fixtures.templateNoTimeline.replacingOccurrences(of: "PT9.5S", with: "P100D")
            .replacingOccurrences(of: "duration=\"25600\"", with: "duration=\"1\"")
        #expect(addressingError(tiny)?.code == .tooLarge)
        let zeroDuration = Fixtures.templateNoTimeline.replacingOccurrences(
            of: "duration=\"25600\"", with: "duration=\"0\"")
        #expect(error(zeroDuration)?.attribute == "duration")
        let zeroScale = Fixtures.templateNoTimeline.replacingOccurrences(
            of: "timescale=\"12800\"", with: "timescale=\"0\"")
        #expect(error(zeroScale)?.message.contains("SegmentTemplate@timescale") == true)
        let lastUnbounded = Fixtures.templateTimeline(media: "s-$Number$.m4s")
            .replacingOccurrences(of: "<S d=\"12800\" />", with: "<S d=\"12800\" r=\"-1\" />")
            .replacingOccurrences(of: "mediaPresentationDuration=\"PT9.0S\"", with: "")
        #expect(addressingError(lastUnbounded)?.code == .unsupported)
    }

    @Test func badValuesAreNamed() {
        let range = Fixtures.singleFile.replacingOccurrences(of: "mediaRange=\"840-52341\"", with: "mediaRange=\"9-3\"")
        let rangeError = error(range)
        #expect(rangeError?.element == "SegmentURL" && rangeError?.attribute == "mediaRange")
        let duration = Fixtures.singleFile.replacingOccurrences(of: "PT5.0S", with: "five seconds")
        #expect(error(duration)?.message.contains("MPD@mediaPresentationDuration") == true)
        let noMedia = Fixtures.templateNoTimeline.replacingOccurrences(
            of: " media=\"chunk-stream$RepresentationID$-$Number%05d$.m4s\"", with: "")
        #expect(addressingError(noMedia)?.message.contains("SegmentTemplate@media is missing") == true)
        let scheme = Fixtures.singleFile.replacingOccurrences(
            of: "<BaseURL>stream0.mp4", with: "<BaseURL>file:///etc/passwd")
        #expect(error(scheme)?.code == .refusedURI)
        let remote = Fixtures.singleFile.replacingOccurrences(
            of: "<Period id=\"0\"", with: "<Period xlink:href=\"http://x.test/p.xml\" id=\"0\"")
        #expect(error(remote)?.code == .unsupported)
        let both = Fixtures.singleFile.replacingOccurrences(
            of: "<BaseURL>stream0.mp4</BaseURL>", with: "<SegmentBase indexRange=\"0-10\"/>")
        #expect(error(both)?.code == .malformed)
    }
}

/// Found by fuzzing: Foundation's XMLParser traps on a name that is not UTF-8, so such an MPD is refused first.
@Suite("DASH bytes")
struct MPDBytesTests {
    @Test func anMPDThatIsNotUTF8IsRefused() {
        var bytes = Array(Fixtures.templateNoTimeline.utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "t"))!
        bytes.insert(0xE5, at: at + 1)
        let error = Fixtures.error { _ = try MPD(data: Data(bytes), url: Fixtures.url) }
        #expect(
            error?.code == .malformed && error?.message.contains("not UTF-8") == true, "\(String(describing: error))")
    }
}
