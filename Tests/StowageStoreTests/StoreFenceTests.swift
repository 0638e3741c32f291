import Foundation
import GRDB
import StowageProtocol
import Testing

@testable import StowageStore

/// The write fence the leader sets: checked first in every write transaction, inside it; a refusal leaves nothing.
@Suite("Store write fence")
struct StoreFenceTests {
    final class Fence: StoreWriteFence {
        var open = true
        var checks = 0
        struct Closed: Error {}
        func check(_ connection: StoreConnection) throws {
            checks += 1
            // Inside the transaction: the fence reads with the write's own connection.
            _ = try connection.value(Int.self, "SELECT COUNT(*) FROM setting")
            if !open { throw Closed() }
        }
    }

    @Test(arguments: Engine.allCases) func aClosedFenceRefusesWritesAndBatchesWhole(_ engine: Engine) throws {
        let store = try engine.store()
        let fence = Fence()
        store.writeFence = fence
        try store.setSetting("a", "1")
        #expect(fence.checks == 1)
        try store.batch {
            try? store.setSetting("b", "1")
            try? store.setSetting("c", "1")
        }
        #expect(fence.checks == 2, "a batch checks once, in its own transaction")
        fence.open = false
        #expect(throws: Fence.Closed.self) { try store.setSetting("d", "1") }
        #expect(throws: Fence.Closed.self) { try store.insert(StoreTests().title("t")) }
        var ran = false
        #expect(throws: Fence.Closed.self) {
            try store.batch {
                ran = true
                try? store.setSetting("e", "1")
            }
        }
        #expect(!ran)
        #expect(try store.setting("d") == nil)
        #expect(try store.title("t") == nil)
        #expect(try store.setting("c") == "1")
    }

    @Test(arguments: Engine.allCases) func rowsKeepTheirColumnOrder(_ engine: Engine) throws {
        let store = try engine.store()
        let row = try #require(try store.db.read { try $0.rows("SELECT 1 AS b, 'x' AS a, NULL AS c").first })
        // DatabaseValues, not typed reads: a column out of place fails the test instead of trapping in GRDB.
        #expect(row[0] as DatabaseValue == 1.databaseValue)
        #expect(row[1] as DatabaseValue == "x".databaseValue)
        #expect(row[2] as DatabaseValue == .null)
        #expect(Array(row.columnNames).map { $0.lowercased() } == ["b", "a", "c"])
    }
}
