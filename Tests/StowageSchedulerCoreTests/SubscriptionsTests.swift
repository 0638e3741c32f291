import Testing

@testable import StowageSchedulerCore

@Suite("Subscriptions")
struct SubscriptionsTests {
    @Test func targetsAreTheTitlesSubscribersAndTheWildcardOnes() {
        var s = Subscriptions<String>(lifetime: 3)
        let freshAll = s.subscribe("all", to: [], now: 0)
        #expect(freshAll)
        let freshOne = s.subscribe("one", to: ["t1"], now: 0)
        #expect(freshOne)
        let freshTwo = s.subscribe("two", to: ["t1", "t2"], now: 0)
        #expect(freshTwo)
        #expect(Set(s.targets(for: "t1")) == ["all", "one", "two"])
        #expect(Set(s.targets(for: "t2")) == ["all", "two"])
        #expect(s.targets(for: "t3") == ["all"])
    }

    @Test func renewingIsNotFreshAndReplacesTheTitles() {
        var s = Subscriptions<String>(lifetime: 3)
        let first = s.subscribe("c", to: ["t1"], now: 0)
        #expect(first)
        let renewal = s.subscribe("c", to: ["t2"], now: 1)
        #expect(!renewal, "a renewal gets no second snapshot")
        #expect(s.targets(for: "t1").isEmpty)
        #expect(s.targets(for: "t2") == ["c"])
    }

    @Test func subscriptionsExpireUnlessRenewed() {
        var s = Subscriptions<String>(lifetime: 3)
        s.subscribe("old", to: [], now: 0)
        s.subscribe("renewed", to: [], now: 0)
        s.subscribe("renewed", to: [], now: 2)
        s.expire(now: 2.9)
        #expect(Set(s.targets(for: "t")) == ["old", "renewed"])
        s.expire(now: 3)
        #expect(s.targets(for: "t") == ["renewed"])
        s.remove("renewed")
        #expect(s.isEmpty)
        let afterRemoval = s.subscribe("renewed", to: [], now: 4)
        #expect(afterRemoval, "after removal it is a new subscriber again")
    }
}
