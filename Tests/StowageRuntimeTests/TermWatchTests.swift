import StowageRuntime
import Testing

@Suite struct TermWatchTests {
    /// `admits` outside `#expect`, which cannot mutate.
    func admit(_ watch: inout TermWatch, _ term: Int64?) -> Bool { watch.admits(term) }

    @Test func aTaskOfAnOlderTermIsDroppedOnceANewerOneWasSeen() {
        var watch = TermWatch()
        #expect(admit(&watch, nil))  // a scheduler that predates leadership
        #expect(admit(&watch, 3))
        #expect(admit(&watch, 3))  // the same term again
        #expect(admit(&watch, 5))
        #expect(!admit(&watch, 4))  // a deposed leader's task
        #expect(!admit(&watch, 3))
        #expect(admit(&watch, 5) && watch.highest == 5)
        #expect(admit(&watch, nil))
    }
}
