import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StowageOfflineCopy
import StowageProtocol
import Testing

@testable import StowageGateway

/// The library's pure parts: who sees which title, the license in words, subtitle segments joined, the offline
/// master narrowed to one audio language, and the play page's paths under a title.
@Suite("Library parts")
struct LibraryPartsTests {
    static func status(
        _ state: TitleState, playable: Bool = false, error: TitleError? = nil, license: LicenseStatus? = nil,
        suspended: SuspendedReason? = nil
    ) -> TitleStatus {
        var s = TitleStatus(
            token: "t-\(state.rawValue)", url: "http://origin/master.m3u8", name: "A", state: state, progress: 0.5,
            bytesDownloaded: 10, bytesExpected: 20, segmentsDone: 1, segmentsTotal: 2, requestedAt: nil,
            startedAt: nil, endedAt: nil, license: license, localPlaylist: nil, playableOffline: playable, error: error)
        s.suspendedReason = suspended
        return s
    }

    @Test func aViewerSeesPlayableTitlesAndThoseComingAndNothingElse() {
        typealias V = LibraryVisibility
        #expect(V.shelf(Self.status(.completed, playable: true)) == .playable)
        for state in [TitleState.downloading, .verifying, .recording] {
            #expect(V.shelf(Self.status(state)) == .coming, "\(state)")
        }
        let hidden: [(String, TitleStatus)] = [
            ("failed", Self.status(.failed, error: TitleError(code: .network, message: "connection refused"))),
            ("paused", Self.status(.suspended, suspended: .paused)),
            ("waiting for its window", Self.status(.suspended, suspended: .window)),
            ("over the quota", Self.status(.suspended, suspended: .quota)),
            ("canceled", Self.status(.canceled)),
            ("requested, not resolved yet", Self.status(.requested)),
            ("licensing", Self.status(.licensing)),
            ("licensed only", Self.status(.licensed)),
            ("completed, not playable", Self.status(.completed, playable: false)),
            (
                "expired",
                Self.status(
                    .completed, playable: true,
                    license: LicenseStatus(kind: .rental, requestedAt: nil, expiresAt: nil, expired: true))
            ),
            (
                "requested with a host unreachable",
                Self.status(.requested, error: TitleError(code: .network, message: "127.0.0.1:9 refused"))
            ),
        ]
        for (why, status) in hidden {
            #expect(V.shelf(status) == nil, "\(why)")
            #expect(!V.isVisible(status, to: .device("tablet")), "\(why)")
            #expect(V.isVisible(status, to: .admin), "the admin's API shows \(why)")
        }
    }

    @Test func theLicenseReadsInWordsInTheBoxsTimeZone() throws {
        let now = try #require(LicenseWords.date("2026-11-27T10:00:00Z"))  // a Friday
        let rental = LicenseStatus(kind: .rental, requestedAt: nil, expiresAt: "2026-12-01T17:00:00Z", expired: false)
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(LicenseWords.text(rental, now: now, timeZone: paris) == "available until Tue 18:00")
        #expect(LicenseWords.text(rental, now: now, timeZone: tokyo) == "available until Wed 02:00")
        var soon = rental
        soon.expiresAt = "2026-11-27T17:30:00Z"
        #expect(LicenseWords.text(soon, now: now, timeZone: paris) == "available until today 18:30")
        soon.expiresAt = "2026-11-28T07:00:00.250Z"
        #expect(LicenseWords.text(soon, now: now, timeZone: paris) == "available until tomorrow 08:00")
        soon.expiresAt = "2026-12-24T17:00:00Z"
        #expect(LicenseWords.text(soon, now: now, timeZone: paris) == "available until 24 Dec 18:00")
        soon.expiresAt = "2027-03-01T12:00:00Z"
        #expect(LicenseWords.text(soon, now: now, timeZone: paris) == "available until 1 Mar 2027")
        let counted = LicenseStatus(
            kind: .purchase, requestedAt: nil, expiresAt: nil, playsRemaining: 2, expired: false)
        #expect(LicenseWords.text(counted, now: now, timeZone: paris) == "2 plays left")
        var one = counted
        one.playsRemaining = 1
        one.playTimeRemainingSeconds = 4800
        #expect(LicenseWords.text(one, now: now, timeZone: paris) == "1 play left · 1 h 20 min of viewing left")
        let none = LicenseStatus(kind: .none, requestedAt: nil, expiresAt: nil, expired: false)
        #expect(LicenseWords.text(none, now: now, timeZone: paris) == "no limit")
        #expect(LicenseWords.text(nil, now: now, timeZone: paris) == "no limit")
        var ended = rental
        ended.expiresAt = "2026-11-27T09:00:00Z"
        #expect(LicenseWords.text(ended, now: now, timeZone: paris) == "expired")
    }

    static let master = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_aud",NAME="aen",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,\
        URI="audio-en/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_aud",NAME="ade",LANGUAGE="de",DEFAULT=NO,AUTOSELECT=YES,\
        URI="audio-de/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Francais",LANGUAGE="fr",DEFAULT=NO,\
        URI="subtitles-fr/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=500000,AUDIO="group_aud",SUBTITLES="subs"
        video/index.m3u8

        """

    @Test func theOfflineMasterNarrowsToOneAudioLanguage() throws {
        let master = try #require(LocalMaster(text: Self.master))
        #expect(master.audio.map(\.language) == ["en", "de"] && master.subtitles.map(\.language) == ["fr"])
        #expect(master.variantURI == "video/index.m3u8")
        let german = try #require(master.narrowed(toAudio: "de"))
        #expect(!german.contains("audio-en") && german.contains("URI=\"audio-de/index.m3u8\""))
        #expect(german.contains("LANGUAGE=\"de\",DEFAULT=YES,AUTOSELECT=YES"))
        #expect(!german.contains("SUBTITLES"), "subtitles come as <track>s")
        #expect(german.contains("#EXT-X-STREAM-INF:BANDWIDTH=500000,AUDIO=\"group_aud\"\nvideo/index.m3u8"))
        #expect(master.narrowed(toAudio: "it") == nil)
        #expect(LocalMaster(text: "#EXTM3U\n#EXTINF:2,\nseg.ts\n#EXT-X-ENDLIST\n") == nil, "a media playlist")
    }

    @Test func thePlayPagesPathsUnderATitle() {
        #expect(
            TitleRoute(method: .get, path: "/titles/tok/subtitles/fr.vtt").endpoint
                == .subtitles(language: "fr", srt: false))
        #expect(
            TitleRoute(method: .get, path: "/titles/tok/master-audio-pt-BR.m3u8").endpoint
                == .audioMaster(language: "pt-BR"))
        #expect(
            TitleRoute(method: .get, path: "/titles/tok/subtitles/fr.srt").endpoint
                == .subtitles(language: "fr", srt: true))
        for odd in ["/titles/tok/subtitles/../x.vtt", "/titles/tok/subtitles/.vtt", "/titles/tok/master-audio-.m3u8"] {
            let endpoint = TitleRoute(method: .get, path: odd).endpoint
            #expect(
                endpoint != .subtitles(language: "..", srt: false) && endpoint != .audioMaster(language: ""), "\(odd)")
            if case .subtitles = endpoint { Issue.record("\(odd) named subtitles") }
        }
        #expect(
            TitleRoute(method: .get, path: "/titles/tok/subtitles-fr/index.m3u8").endpoint
                == .file(relative: "subtitles-fr/index.m3u8"), "the copy's own files stay files")
    }

    @Test func anEventStreamCarriesOnlyWhatItsViewerMaySee() async throws {
        let root = try GatewayHTTPTests.titles()
        defer { try? FileManager.default.removeItem(at: root) }
        let backend = FakeBackend()  // lists `tok`, completed and playable
        var coming = Self.status(.downloading)
        coming.token = "dl"
        var failedLater = coming
        failedLater.state = .failed
        failedLater.error = TitleError(code: .network, message: "origin.lan: connection refused")
        var neverShown = Self.status(.failed, error: TitleError(code: .playlist, message: "bad.m3u8 line 3"))
        neverShown.token = "bad"
        var expired = backend.status
        expired.license = LicenseStatus(kind: .rental, requestedAt: nil, expiresAt: nil, expired: true)
        backend.events.withLock { $0 = [coming, neverShown, expired, failedLater] }
        let gateway = Gateway(
            configuration: .init(titlesRoot: root, adminSecret: "admin-secret"), backend: backend,
            logger: Logger(label: "test"), clock: { 0 })
        let app = Application(router: gateway.router(context: AddressedContext.self))
        try await app.test(.router) { client in
            try await client.execute(uri: "/events", method: .get, headers: [.authorization: "Bearer good"]) {
                let text = String(buffer: $0.body)
                let blocks = text.components(separatedBy: "\n\n").filter { !$0.hasPrefix(":") && !$0.isEmpty }
                #expect(blocks.count == 3, "\(text)")
                #expect(
                    blocks.first?.hasPrefix("data: {") == true && blocks.first?.contains("\"token\":\"dl\"") == true)
                #expect(blocks.dropFirst().first == "event: remove\ndata: {\"token\":\"tok\"}", "shown, then expired")
                #expect(blocks.last == "event: remove\ndata: {\"token\":\"dl\"}", "coming, then failed")
                #expect(!text.contains("bad") && !text.contains("connection refused"), "no operator's reason")
            }
            try await client.execute(uri: "/events", method: .get, headers: [.authorization: "Bearer admin-secret"]) {
                let text = String(buffer: $0.body)
                #expect(text.components(separatedBy: "data: {").count == 5, "the admin follows every title: \(text)")
                #expect(!text.contains("event: remove"))
            }
        }
    }
}
