import Foundation
import StowageProtocol
import StowageSchedulerService
import Testing

/// The devices component through the service in-process: secrets, signed URLs, revocation, plays counted per
/// device (a peer box's credential never plays) and the gateway's title lookups.
@Suite struct DevicesServiceTests {
    func add(_ d: ServiceDriver, _ name: String, peer: Bool = false) throws -> String {
        guard case .deviceSecret(let secret) = try d.request(.deviceAdd(name: name, peer: peer ? true : nil)) else {
            throw DriverError("the device was not added")
        }
        #expect(secret.name == name)
        return secret.secret
    }

    func authenticate(_ d: ServiceDriver, _ credential: DeviceCredential) throws -> ReplyBody {
        try d.request(.authenticate(credential))
    }

    func refusal(_ reply: ReplyBody) -> TitleError? {
        guard case .error(let error) = reply else { return nil }
        return error
    }

    @Test func aSecretAuthenticatesItsDeviceUntilItIsRevoked() throws {
        let d = try ServiceDriver()
        let secret = try add(d, "tv")
        let peerSecret = try add(d, "box-b", peer: true)
        #expect(try authenticate(d, .secret(secret)) == .principal(DevicePrincipal(device: "tv", peer: false)))
        #expect(try authenticate(d, .secret(peerSecret)) == .principal(DevicePrincipal(device: "box-b", peer: true)))
        #expect(refusal(try authenticate(d, .secret(secret + "x")))?.code == .unauthorized)
        let again = refusal(try d.request(.deviceAdd(name: "tv")))
        #expect(again?.code == .refused && again?.message.contains("revoke tv") == true, "\(String(describing: again))")

        #expect(try d.request(.deviceRevoke(name: "tv")) == .ok)
        let revoked = refusal(try authenticate(d, .secret(secret)))
        #expect(revoked?.code == .unauthorized && revoked?.message == "device tv was revoked")
        guard case .devices(let devices) = try d.request(.devices) else { throw DriverError("no device list") }
        #expect(devices.map(\.name).sorted() == ["box-b", "tv"])
        #expect(devices.first { $0.name == "tv" }?.revokedAt != nil)
        #expect(devices.first { $0.name == "box-b" }?.peer == true)
        #expect(refusal(try d.request(.deviceRevoke(name: "radio")))?.code == .notFound)
    }

    @Test(arguments: ["", "admin", "a b", "tv/1", String(repeating: "x", count: 65), "télé"])
    func aBadDeviceNameIsRefusedNamingTheRule(name: String) throws {
        let d = try ServiceDriver()
        let error = refusal(try d.request(.deviceAdd(name: name)))
        #expect(error?.code == .refused && error?.message.contains("1 to 64 letters") == true)
    }

    /// `path?dev=NAME&exp=UNIX&sig=HEX` parsed as the gateway does.
    func credential(_ signed: String) throws -> DeviceCredential {
        let parts = try #require(URLComponents(string: signed))
        let query = Dictionary(uniqueKeysWithValues: (parts.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        return .signed(
            device: try #require(query["dev"]), path: parts.path, expires: try #require(Double(query["exp"] ?? "")),
            signature: try #require(query["sig"]))
    }

    @Test func aSignedURLOpensItsPathForItsDeviceUntilItExpires() throws {
        let d = try ServiceDriver()
        _ = try add(d, "tv")
        _ = try add(d, "radio")
        guard
            case .signedPath(let signed) = try d.request(
                .deviceSign(name: "tv", path: "/titles/film/master.m3u8", expiresInSeconds: 60))
        else { throw DriverError("not signed") }
        let good = try credential(signed)
        #expect(try authenticate(d, good) == .principal(DevicePrincipal(device: "tv", peer: false)))
        guard case .signed(_, let path, let expires, let signature) = good else { return }
        for forged in [
            DeviceCredential.signed(
                device: "tv", path: "/titles/other/master.m3u8", expires: expires, signature: signature),
            .signed(device: "tv", path: path, expires: expires + 3_600, signature: signature),
            .signed(device: "radio", path: path, expires: expires, signature: signature),
            .signed(device: "nobody", path: path, expires: expires, signature: signature),
        ] {
            let error = refusal(try authenticate(d, forged))
            #expect(error?.code == .unauthorized && error?.message == "the URL's signature does not match", "\(forged)")
        }
        #expect(
            refusal(try authenticate(d, .signed(device: "tv", path: path, expires: 1e300, signature: signature)))?
                .message == "the signed URL's exp is not a time")
        d.clock.advance(61)
        #expect(refusal(try authenticate(d, good))?.message.hasPrefix("the signed URL expired at") == true)
        let bad = refusal(try d.request(.deviceSign(name: "tv", path: "titles/x", expiresInSeconds: 60)))
        #expect(bad?.code == .refused && bad?.message.contains("sign a gateway path") == true)
        #expect(refusal(try d.request(.deviceSign(name: "tv", path: "/x", expiresInSeconds: 0)))?.code == .refused)
    }

    /// A completed title whose files (and entry playlist) are on disk: playable.
    func playableTitle(_ d: ServiceDriver) throws -> String {
        let token = try d.licensedTitle(files: 2)
        try d.fetchEverything("dl")
        let title = try #require(try d.store.title(token))
        let dir = d.home.appendingPathComponent("titles/\(token)")
        let files = try d.store.resources(token: token).map(\.localPath) + [title.localPlaylist].compactMap { $0 }
        for path in files {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: url.path) { try Data("bytes of \(path)".utf8).write(to: url) }
        }
        return token
    }

    @Test func aPlayOnADeviceIsCountedForItAndAPeerBoxNeverPlays() throws {
        let d = try ServiceDriver()
        let token = try playableTitle(d)
        let waiting = try d.submit("http://origin.test/later/master.m3u8")
        _ = try add(d, "tv")
        _ = try add(d, "box-b", peer: true)
        guard case .play(let verdict) = try d.request(.playOn(token: token, device: "tv")) else {
            throw DriverError("no verdict")
        }
        #expect(verdict.playable, "\(verdict)")
        guard case .play(let notYet) = try d.request(.playOn(token: waiting, device: "tv")) else {
            throw DriverError("no verdict")
        }
        #expect(!notYet.playable)
        let peer = refusal(try d.request(.playOn(token: token, device: "box-b")))
        #expect(peer?.code == .forbidden && peer?.message.contains("peer box") == true)
        #expect(refusal(try d.request(.playOn(token: token, device: "radio")))?.code == .notFound)

        guard case .devices(let devices) = try d.request(.devices) else { throw DriverError("no device list") }
        let plays = devices.first { $0.name == "tv" }?.lastPlays ?? []
        #expect(plays.map(\.token) == [token], "the play counted, the refused one not")
        #expect(devices.first { $0.name == "box-b" }?.lastPlays.isEmpty == true)
        #expect(try d.store.title(token)?.playCount == 1)
    }

    @Test func aTitleIsLookedUpByIdOrBySourceURLACompletedOneFirst() throws {
        let d = try ServiceDriver()
        let completed = try d.licensedTitle(files: 1)
        try d.fetchEverything("dl")
        var request = SubmitRequest(
            url: "http://origin.test/other/master.m3u8", name: nil, priority: 0, headers: [], selection: Selection())
        request.id = "film"
        guard case .submitted(let named) = try d.request(.submit(request)) else { throw DriverError("no submit") }
        guard case .title(let byID) = try d.request(.lookup(id: "film", url: nil)) else { throw DriverError("id") }
        #expect(byID.token == named && byID.id == "film")
        guard case .title(let byURL) = try d.request(.lookup(id: nil, url: "http://origin.test/show/master.m3u8"))
        else { throw DriverError("url") }
        #expect(byURL.token == completed && byURL.state == .completed)
        #expect(refusal(try d.request(.lookup(id: "none", url: nil)))?.code == .notFound)
        #expect(refusal(try d.request(.lookup(id: nil, url: "http://origin.test/none.m3u8")))?.code == .notFound)
        #expect(refusal(try d.request(.lookup(id: nil, url: nil)))?.code == .refused)
    }
}
