import Foundation
import Testing

@testable import StowageSubtitles

/// `wvtt` and `stpp` in fragmented MP4, as Shaka Packager writes them, read cue for cue.
@Suite struct FragmentedTextTests {
    private func cues(_ folder: String, segments: Int = 4) throws -> [SubtitleCue] {
        let track = try FragmentedTextTrack(initSection: try Fixture.bytes("\(folder)/init.mp4"))
        var cues: [SubtitleCue] = []
        for n in 1...segments {
            for sample in try track.samples(try Fixture.bytes("\(folder)/\(n).m4s")) {
                switch track.format {
                case .wvtt: cues += try WVTTSample.cues(sample)
                case .stpp: cues += try TTMLDocument.cues(sample.bytes)
                }
            }
        }
        return SubtitleCue.merged(cues)
    }

    @Test func wvttSamplesGiveTheSourceCuesWithTimesFromTfdtAndTrun() throws {
        let track = try FragmentedTextTrack(initSection: try Fixture.bytes("wvtt/init.mp4"))
        #expect(track.format == .wvtt)
        #expect(track.timescale == 1000)
        let source = try WebVTTText.cues(try Fixture.text("source.vtt"))
        // The second cue (2.000–3.250) is cut at the 3 s segment boundary by the packager: merged back.
        #expect(try cues("wvtt").map(Fixture.Timed.init) == source.map(Fixture.Timed.init))
        #expect(try cues("wvtt").first?.settings == "align:start")
    }

    @Test func stppSamplesGiveTheSourceCues() throws {
        let track = try FragmentedTextTrack(initSection: try Fixture.bytes("stpp/init.mp4"))
        #expect(track.format == .stpp)
        #expect(try cues("stpp").map(Fixture.Timed.init) == Fixture.plainCues)
    }

    @Test func aTruncatedFragmentIsMalformedNotARead() throws {
        let track = try FragmentedTextTrack(initSection: try Fixture.bytes("wvtt/init.mp4"))
        let whole = try Fixture.bytes("wvtt/2.m4s")
        #expect(throws: SubtitleError.self) { try track.samples(Array(whole.prefix(whole.count - 20))) }
        do {
            _ = try track.samples(Array(whole.prefix(whole.count - 20)))
        } catch {
            #expect(error.code == .malformed)
        }
    }

    @Test func aVttcWithoutPayloadIsMalformed() throws {
        // A vttc holding only an sttg: 8 + 8 + 5 bytes.
        let sttg: [UInt8] = [0, 0, 0, 13] + Array("sttg".utf8) + Array("a:b".utf8) + [0, 0]
        let vttc: [UInt8] = [0, 0, 0, UInt8(8 + sttg.count)] + Array("vttc".utf8) + sttg
        let sample = FragmentedTextTrack.Sample(start: 1, duration: 1, bytes: vttc)
        #expect(throws: SubtitleError.self) { try WVTTSample.cues(sample) }
    }

    @Test func anInitSectionOfAnotherFormatIsUnsupported() throws {
        var bytes = try Fixture.bytes("wvtt/init.mp4")
        let index = try #require(bytes.indices.first { Array(bytes[$0..<($0 + 4)]) == Array("wvtt".utf8) })
        bytes.replaceSubrange(index..<(index + 4), with: Array("tx3g".utf8))
        do {
            _ = try FragmentedTextTrack(initSection: bytes)
            Issue.record("tx3g was read as a text track")
        } catch {
            #expect(error.code == .unsupported)
        }
    }
}
