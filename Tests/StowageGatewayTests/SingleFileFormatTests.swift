import StowageProtocol
import Testing

@testable import StowageOfflineCopy

/// The single file's format comes from the output's extension only, and languages are written as the ISO 639-2/B
/// codes MP4 and Matroska carry (an MP4 drops a two-letter tag: the stream would show no language).
@Suite struct SingleFileFormatTests {
    @Test func theExtensionNamesTheFormat() {
        #expect(SingleFileFormat(path: "/x/film.mp4") == .mp4)
        #expect(SingleFileFormat(path: "film.MKV") == .mkv)
        #expect(SingleFileFormat(path: "film.avi") == nil)
        #expect(SingleFileFormat(path: "mp4") == nil)
        #expect(SingleFileFormat(path: "dir.mp4/film") == nil)
        #expect(SingleFileFormat.mp4.fileName == "title.mp4")
    }

    @Test func languagesAreWrittenAsISO639Bibliographic() {
        #expect(Remuxer.containerLanguage("en") == "eng")
        #expect(Remuxer.containerLanguage("de") == "ger")
        #expect(Remuxer.containerLanguage("fr") == "fre")
        #expect(Remuxer.containerLanguage("pt-BR") == "por")
        #expect(Remuxer.containerLanguage("deu") == "ger")
        #expect(Remuxer.containerLanguage("xx") == nil)
    }
}
