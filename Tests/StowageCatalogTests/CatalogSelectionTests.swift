import Foundation
import StowageCatalog
import StowageProtocol
import Testing

/// A catalogue entry's `selection` takes the decoding keys of the `submit` options, in camelCase.
@Suite("Catalogue selection by what a device decodes")
struct CatalogSelectionTests {
    func document(_ selection: String) -> Data {
        Data(
            """
            {"version": 1, "titles": [{"id": "film", "url": "http://origin.example/film/master.m3u8",
             "selection": \(selection)}]}
            """.utf8)
    }

    @Test func theKeysOfTheOptions() throws {
        let catalog = try Catalog.decode(
            document(
                #"{"videoCodec": ["avc", "HEVC"], "videoRange": "sdr", "audioCodec": ["ac-3", "aac"], "#
                    + #""channels": 2, "audioOnly": true}"#))
        #expect(
            catalog.titles[0].selection
                == Selection(
                    videoCodec: [.avc, .hevc], videoRange: .sdr, audioCodec: [.ac3, .aac], channels: 2, audioOnly: true)
        )
    }

    @Test(arguments: [
        (#"{"videoCodec": ["vp9"]}"#, "codec 'vp9' is not one of avc, hevc, av1, aac, ac-3, ec-3"),
        (#"{"videoCodec": ["aac"]}"#, "videoCodec: 'aac' is not a video codec"),
        (#"{"audioCodec": ["avc"]}"#, "audioCodec: 'avc' is not an audio codec"),
        (#"{"videoRange": "hdr"}"#, "videoRange"),
        (#"{"channels": 0}"#, "channels '0' is out of range"),
    ])
    func aSelectionNoDeviceCouldUseRefusesTheCatalogue(selection: String, why: String) {
        do {
            _ = try Catalog.decode(document(selection))
            Issue.record("accepted \(selection)")
        } catch {
            #expect(error.code == .malformed)
            #expect(error.message.contains(why), "\(error.message)")
        }
    }
}
