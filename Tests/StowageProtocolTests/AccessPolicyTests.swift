import StowageProtocol
import Testing

@Suite("Roles of CURVE keys: access policy and ZAP user ids")
struct AccessPolicyTests {
    /// The operations by name, as ``AccessPolicy/name(of:)`` gives them. `kind(of:)` ties this list to
    /// ``ClientOperation`` and `rule(_:)` gives each a rule, both by exhaustive switches without `default`: a new
    /// operation does not compile here until it has a kind, and a kind does not compile until it has a sample and
    /// the roles that may ask for it. (A count of the table's rows missed ten operations that way.)
    enum Kind: String, CaseIterable {
        case submit, status, list, cancel, workers, subscribe, unsubscribe, pause, resume, delete, stop, limits
        case renew, license, played, bookmarkAdd, bookmarkRemove, bookmarks, verify, gc, stats, boxKey
        case exportTitle, importBundle, bundleJob, playable, play, key, deviceAdd, devices, deviceRevoke
        case deviceSign, authenticate, playOn, lookup, catalogApply, catalogStatus, notifyStatus, peerManifest
        case pin, evictable, devicePair, pairRedeem, fetchScope
    }

    static func kind(of operation: ClientOperation) -> Kind {
        switch operation {
        case .submit: .submit
        case .status: .status
        case .list: .list
        case .cancel: .cancel
        case .workers: .workers
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .pause: .pause
        case .resume: .resume
        case .delete: .delete
        case .stop: .stop
        case .limits: .limits
        case .renew: .renew
        case .license: .license
        case .played: .played
        case .bookmarkAdd: .bookmarkAdd
        case .bookmarkRemove: .bookmarkRemove
        case .bookmarks: .bookmarks
        case .verify: .verify
        case .gc: .gc
        case .stats: .stats
        case .boxKey: .boxKey
        case .exportTitle: .exportTitle
        case .importBundle: .importBundle
        case .bundleJob: .bundleJob
        case .playable: .playable
        case .play: .play
        case .key: .key
        case .deviceAdd: .deviceAdd
        case .devices: .devices
        case .deviceRevoke: .deviceRevoke
        case .deviceSign: .deviceSign
        case .devicePair: .devicePair
        case .pairRedeem: .pairRedeem
        case .authenticate: .authenticate
        case .playOn: .playOn
        case .lookup: .lookup
        case .catalogApply: .catalogApply
        case .catalogStatus: .catalogStatus
        case .notifyStatus: .notifyStatus
        case .peerManifest: .peerManifest
        case .pin: .pin
        case .evictable: .evictable
        case .fetchScope: .fetchScope
        }
    }

    /// Samples of each kind and the roles that may ask for it (operators may ask for everything; a worker's key
    /// for no operation at all; the gateway's reads titles, checks devices and serves plays).
    static func rule(_ kind: Kind) -> (samples: [ClientOperation], roles: Set<CallerRole>) {
        let op: Set<CallerRole> = [.operator], lan: Set<CallerRole> = [.operator, .gateway]
        switch kind {
        case .submit:
            return (
                [
                    .submit(
                        SubmitRequest(url: "https://o/m.m3u8", name: nil, priority: 0, headers: [], selection: .init()))
                ], op
            )
        case .status: return ([.status(token: "t")], lan)
        case .list: return ([.list(state: nil), .list(state: .completed, after: "t", limit: 2)], lan)
        case .cancel: return ([.cancel(token: "t")], op)
        case .workers: return ([.workers], op)
        case .subscribe: return ([.subscribe(tokens: []), .subscribe(tokens: ["t"])], lan)
        case .unsubscribe: return ([.unsubscribe], lan)
        case .pause: return ([.pause(token: "t")], op)
        case .resume: return ([.resume(token: "t")], op)
        case .delete: return ([.delete(token: "t")], op)
        case .stop: return ([.stop(token: "t")], op)
        case .limits: return ([.limits(nil), .limits(LimitsInfo(titles: 9))], op)
        case .renew: return ([.renew(token: "t", terms: nil, licenseURL: nil)], op)
        case .license: return ([.license(token: "t")], lan)
        case .played: return ([.played(token: "t", seconds: 3)], lan)
        case .bookmarkAdd: return ([.bookmarkAdd(token: "t", position: 1, label: "x")], op)
        case .bookmarkRemove: return ([.bookmarkRemove(token: "t", position: 1)], op)
        case .bookmarks: return ([.bookmarks(token: "t")], lan)
        case .verify: return ([.verify(token: "t", repair: false), .verify(token: "t", repair: true)], op)
        case .gc: return ([.gc], op)
        case .stats: return ([.stats], op)
        case .boxKey: return ([.boxKey], op)
        case .exportTitle:
            return (
                [
                    .exportTitle(.init(token: "t", directory: "/b")),
                    .exportTitle(
                        .init(
                            token: "t", directory: "/b",
                            forBox: "k", move: true)),
                ], op
            )
        case .importBundle:
            return (
                [
                    .importBundle(.init(directory: "/b", trusted: ["k"])),
                    .importBundle(
                        .init(
                            directory: "/b",
                            trustAny: true)),
                ], op
            )
        case .bundleJob: return ([.bundleJob(id: "j")], op)
        case .playable: return ([.playable(token: "t")], lan)
        case .play: return ([.play(token: "t")], lan)
        case .key: return ([.key(token: "t", index: 0)], lan)
        case .deviceAdd: return ([.deviceAdd(name: "tv"), .deviceAdd(name: "box-b", peer: true)], op)
        case .devices: return ([.devices], op)
        case .deviceRevoke: return ([.deviceRevoke(name: "tv")], op)
        case .deviceSign:
            return ([.deviceSign(name: "tv", path: "/titles/a/master.m3u8", expiresInSeconds: 60)], op)
        case .devicePair: return ([.devicePair(name: "tablet-3")], op)
        case .pairRedeem: return ([.pairRedeem(code: "c")], lan)
        case .authenticate:
            return (
                [
                    .authenticate(.secret("s")),
                    .authenticate(
                        .signed(
                            device: "tv", path: "/", expires: 1,
                            signature: "00")),
                ], lan
            )
        case .playOn: return ([.playOn(token: "t", device: "tv")], lan)
        case .lookup: return ([.lookup(id: "a", url: nil), .lookup(id: nil, url: "https://o/m.m3u8")], lan)
        case .catalogApply:
            return (
                [
                    .catalogApply(document: "e30=", signature: nil),
                    .catalogApply(
                        document: "e30=",
                        signature: "c2ln"),
                ], op
            )
        case .catalogStatus: return ([.catalogStatus], op)
        case .notifyStatus: return ([.notifyStatus], op)
        case .peerManifest: return ([.peerManifest(token: "t")], lan)
        case .pin: return ([.pin(token: "t", pinned: true), .pin(token: "t", pinned: false)], op)
        case .evictable: return ([.evictable], op)
        case .fetchScope: return ([.fetchScope(url: "https://o/m.m3u8")], lan)
        }
    }

    @Test(arguments: Kind.allCases) func everyOperationForEveryRole(kind: Kind) {
        let (samples, allowed) = Self.rule(kind)
        #expect(!samples.isEmpty)
        for operation in samples {
            #expect(Self.kind(of: operation) == kind, "a sample of \(kind) is \(Self.kind(of: operation))")
            #expect(AccessPolicy.name(of: operation) == kind.rawValue)
            for role in CallerRole.allCases {
                #expect(
                    AccessPolicy.allows(role, operation: operation) == allowed.contains(role),
                    "\(role) asking for \(kind)")
            }
        }
    }

    /// What changes the library or leaves the box with its keys is an operator's: a gateway's key (which faces the
    /// venue's devices) may not export, import or apply a catalogue, and a worker's may send no request at all.
    @Test func bundlesAndCataloguesAreForOperatorsOnly() {
        for kind in [Kind.exportTitle, .importBundle, .catalogApply, .pin, .boxKey, .bundleJob] {
            for operation in Self.rule(kind).samples {
                #expect(!AccessPolicy.allows(.gateway, operation: operation), "gateway asking for \(kind)")
                #expect(!AccessPolicy.allows(.worker, operation: operation), "worker asking for \(kind)")
                #expect(AccessPolicy.allows(.operator, operation: operation), "operator asking for \(kind)")
            }
        }
        #expect(!AccessPolicy.allows(.worker, command: .request), "a worker's key sends no request at all")
    }

    @Test func everyCommandForEveryRole() {
        let worker: Set<Command> = [.register, .heartbeat, .result, .progress, .bye]
        for command in Command.allCases {
            for role in CallerRole.allCases {
                let expected: Bool
                switch role {
                case .worker: expected = worker.contains(command)
                case .gateway: expected = command == .request
                case .operator: expected = worker.contains(command) || command == .request
                }
                #expect(AccessPolicy.allows(role, command: command) == expected, "\(role) sending \(command)")
            }
        }
    }

    @Test func operationNamesNeverCarryArguments() {
        #expect(AccessPolicy.name(of: .authenticate(.secret("hunter2"))) == "authenticate")
        #expect(AccessPolicy.name(of: .deviceAdd(name: "tv")) == "deviceAdd")
        #expect(AccessPolicy.name(of: .gc) == "gc")
    }

    @Test func zapUserIDsRoundTripAndStrangersGetNoRole() {
        for role in CallerRole.allCases {
            let caller = Caller(role: role, name: "box-2")
            #expect(Caller(zapUserID: caller.zapUserID) == caller)
        }
        #expect(Caller(zapUserID: "gateway:a:b") == Caller(role: .gateway, name: "a:b"), "the first colon splits")
        #expect(Caller(zapUserID: nil) == .local, "no ZAP (ipc): the local owner")
        #expect(Caller(zapUserID: "") == .local)
        #expect(Caller(zapUserID: "local") == .local)
        #expect(Caller.local.role == .operator)
        #expect(Caller(zapUserID: "admin:x") == nil, "an unknown role")
        #expect(Caller(zapUserID: "worker:") == nil, "no name")
        #expect(Caller(zapUserID: "Pb5Yq2kz0v4hY2v0bS6cH!tq8uE4x7nM0r3v9w1z") == nil, "a bare key (before roles)")
    }
}
