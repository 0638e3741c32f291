import StowageProtocol
import Testing

@testable import StowageGateway

/// The add-title form's JSON: what `stowctl submit` would refuse is refused before the scheduler is asked, each
/// refusal naming the field.
@Suite("Console add-title form")
struct ConsoleTitleFormTests {
    static func refusal(_ json: String) -> String? {
        do {
            _ = try ConsoleTitleForm.decode(json)
            return nil
        } catch let error as GatewayError {
            #expect(error.status == .badRequest && error.code == .refused)
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func badFieldsAreRefusedByName() {
        #expect(Self.refusal("{}")?.contains("no 'url'") == true)
        #expect(Self.refusal(#"{"url": "ftp://cdn.example/m.m3u8"}"#)?.hasPrefix("url:") == true)
        #expect(Self.refusal(#"{"url": "  "}"#)?.hasPrefix("url:") == true)
        #expect(Self.refusal(#"{"url": "https://cdn.example/m.m3u8", "bitrate": -5}"#)?.hasPrefix("bitrate:") == true)
        #expect(
            Self.refusal(#"{"url": "https://cdn.example/m.m3u8", "maxHeight": 0}"#)?.hasPrefix("maxHeight:") == true)
        #expect(
            Self.refusal(#"{"url": "https://cdn.example/m.m3u8", "bitrate": "fast"}"#)?.contains("'bitrate'") == true)
        #expect(Self.refusal("not json")?.contains("JSON") == true)
    }

    @Test func aGoodFormIsTheSubmitStowctlWouldSend() throws {
        let form = try ConsoleTitleForm.decode(
            #"{"url": " https://cdn.example/m.m3u8 ", "name": "Match", "id": "m-1", "bitrate": 2000000, "#
                + #""audio": "en, fr", "subtitles": "all"}"#)
        let request = form.submitRequest
        #expect(request.url == "https://cdn.example/m.m3u8" && request.name == "Match" && request.id == "m-1")
        #expect(request.selection == Selection(bitrate: 2_000_000, audio: ["en", "fr"], subtitles: ["all"]))
        #expect(form.work.url == request.url && form.work.selection == request.selection)
    }
}
