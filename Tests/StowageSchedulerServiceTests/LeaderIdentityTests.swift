import Foundation
import StowageRuntime
import Testing

@testable import StowageSchedulerService

@Suite struct LeaderIdentityTests {
    let home = StowageHome(option: "/tmp/stw-identity")

    @Test func clientsAreToldTheHostNameForAWildcardBind() {
        let identity = LeaderIdentity(
            binds: ["tcp://0.0.0.0:7700", "tcp://*:7701", "tcp://[::]:7702", "tcp://10.0.0.5:7703", "ipc:///x"],
            home: home, hostName: "box-a")
        #expect(
            identity.endpoints == ["tcp://box-a:7700", "tcp://box-a:7701", "tcp://box-a:7702", "tcp://10.0.0.5:7703"])
        #expect(identity.holder.hasPrefix("box-a-\(getpid())-"))
        // Bound to ipc only: its ipc endpoint, which a client on its host can reach.
        #expect(LeaderIdentity(binds: [], home: home, hostName: "box-a").endpoints == [home.defaultEndpoint])
    }

    @Test func onlyAHolderOfThisHostWhoseProcessEndedIsGone() throws {
        let identity = LeaderIdentity(binds: [], home: home, hostName: "box-a-1")
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let dead = ended.processIdentifier
        #expect(identity.isGone("box-a-1-\(dead)-xyz"))
        #expect(!identity.isGone("box-b-\(dead)-xyz"))  // another host: its pids are not ours to read
        #expect(!identity.isGone("box-a-1-\(getppid())-xyz"))  // alive
        #expect(!identity.isGone(identity.holder))  // ourselves
        #expect(!identity.isGone("box-a-1-notapid-xyz") && !identity.isGone("") && !identity.isGone("box-a-1"))
    }
}
