import Foundation
import StowageProtocol
import Testing

@Suite("Limit settings")
struct LimitSettingsTests {
    /// The JSON object in `data`, to compare whatever the order of its keys.
    func object(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    /// The stored `limits` setting and the wire form were written by two types with these keys: the one type
    /// must write the same JSON and read what they wrote.
    @Test func jsonIsTheFormBothOldTypesWrote() throws {
        let stored = LimitSettings(perHost: 3, diskCushion: 1_000)
        let storedText = #"{"perHost":3,"diskCushion":1000}"#
        #expect(try object(JSONEncoder().encode(stored)) == object(Data(storedText.utf8)))
        let change = LimitsInfo(titles: 2, bandwidth: 0, reset: true)
        let changeText = #"{"titles":2,"bandwidth":0,"reset":true}"#
        #expect(try object(JSONEncoder().encode(change)) == object(Data(changeText.utf8)))
        let old = #"{"titles":1,"perTitle":6,"perHost":8,"licenses":4,"bandwidth":0,"diskCushion":1073741824}"#
        #expect(
            try JSONDecoder().decode(LimitSettings.self, from: Data(old.utf8))
                == .defaults.overlaid(with: .init(titles: 1)))
    }

    @Test func layersKeepNoReset() {
        let layered = LimitSettings.defaults.overlaid(with: LimitSettings(titles: 5, reset: true))
        #expect(layered.reset == nil)
        #expect(layered.titles == 5)
    }
}
