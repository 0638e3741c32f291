import Foundation
import StowageStore
import Testing

/// The `--notify` outbox: waiting rows per receiver in order, deletion, and the bound that drops the oldest.
@Suite struct StoreNotifyTests {
    static func rows(_ receiver: String, _ count: Int, from: Double = 0) -> [NotifyRecord] {
        (0..<count).map {
            NotifyRecord(
                eventID: "e\($0)", receiver: receiver, subject: "t", kind: "state", body: Data("{}".utf8),
                createdAt: from + Double($0))
        }
    }

    @Test(arguments: Engine.allCases) func waitingRowsComeInOrderUpToALimitPerReceiver(_ engine: Engine) throws {
        let store = try engine.store()
        try store.enqueueNotifications(Self.rows("a", 3) + Self.rows("b", 2))
        let waiting = try store.waitingNotifications(perReceiver: 2)
        #expect(waiting.map(\.receiver) == ["a", "a", "b", "b"])
        #expect(waiting.map(\.eventID) == ["e0", "e1", "e0", "e1"])
        try store.deleteNotifications(ids: [try #require(waiting.first?.id)])
        #expect(
            try store.waitingNotifications(perReceiver: 10).filter { $0.receiver == "a" }.map(\.eventID) == [
                "e1", "e2",
            ])
        let backlog = try store.notificationBacklog()
        #expect(backlog["a"]?.count == 2 && backlog["a"]?.oldest == 1)
        #expect(backlog["b"]?.count == 2)
    }

    @Test(arguments: Engine.allCases) func pastTheBoundTheOldestAreDropped(_ engine: Engine) throws {
        let store = try engine.store()
        try store.enqueueNotifications(Self.rows("a", 5) + Self.rows("b", 2))
        #expect(try store.trimNotifications(perReceiver: 3) == ["a": 2])
        let left = try store.waitingNotifications(perReceiver: 10)
        #expect(left.filter { $0.receiver == "a" }.map(\.eventID) == ["e2", "e3", "e4"])
        #expect(left.filter { $0.receiver == "b" }.count == 2)
    }
}
