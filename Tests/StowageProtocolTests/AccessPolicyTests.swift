import StowageProtocol
import Testing

@Suite("Roles of CURVE keys: access policy and ZAP user ids")
struct AccessPolicyTests {
    /// One of each operation, with the roles that may ask for it (operators may ask for everything).
    static let table: [(ClientOperation, Set<CallerRole>)] = {
        let op: Set<CallerRole> = [.operator], lan: Set<CallerRole> = [.operator, .gateway]
        let submit = SubmitRequest(url: "https://o/m.m3u8", name: nil, priority: 0, headers: [], selection: .init())
        return [
            (.submit(submit), op), (.status(token: "t"), lan), (.list(state: nil), lan), (.cancel(token: "t"), op),
            (.workers, op), (.subscribe(tokens: []), lan), (.unsubscribe, lan), (.pause(token: "t"), op),
            (.resume(token: "t"), op), (.delete(token: "t"), op), (.stop(token: "t"), op), (.limits(nil), op),
            (.limits(LimitsInfo(titles: 9)), op), (.renew(token: "t", terms: nil, licenseURL: nil), op),
            (.license(token: "t"), lan), (.played(token: "t", seconds: 3), lan),
            (.bookmarkAdd(token: "t", position: 1, label: "x"), op), (.bookmarkRemove(token: "t", position: 1), op),
            (.bookmarks(token: "t"), lan), (.verify(token: "t", repair: true), op), (.gc, op), (.stats, op),
            (.playable(token: "t"), lan), (.play(token: "t"), lan), (.key(token: "t", index: 0), lan),
            (.deviceAdd(name: "tv"), op), (.devices, op), (.deviceRevoke(name: "tv"), op),
            (.deviceSign(name: "tv", path: "/titles/a/master.m3u8", expiresInSeconds: 60), op),
            (.authenticate(.secret("s")), lan),
            (.authenticate(.signed(device: "tv", path: "/", expires: 1, signature: "00")), lan),
            (.playOn(token: "t", device: "tv"), lan), (.lookup(id: "a", url: nil), lan),
        ]
    }()

    @Test func everyOperationForEveryRole() {
        // Every case of ClientOperation is in the table (the policy's switch is exhaustive, the table must be too).
        #expect(Set(Self.table.map { AccessPolicy.name(of: $0.0) }).count == 31)
        for (operation, allowed) in Self.table {
            for role in CallerRole.allCases {
                #expect(
                    AccessPolicy.allows(role, operation: operation) == allowed.contains(role),
                    "\(role) asking for \(AccessPolicy.name(of: operation))")
            }
        }
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
