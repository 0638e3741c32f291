import Foundation
import Testing

@testable import StowageDASH

/// Which segments of a live Representation exist at a moment (DASH-IF IOP v4.3 §4.3): numbered segments from
/// `@duration`, listed ones from a `SegmentTimeline`, the time-shift window, `availabilityTimeOffset`, the Period's
/// end and the live edge, and a box whose clock is off reading the origin's.
@Suite("DASH live segments")
struct LiveSegmentsTests {
    static let ast = 1_700_000_000.0

    func numbered(
        depth: Double? = nil, delay: Double? = nil, ato: Double? = nil, startNumber: UInt64 = 1, offset: UInt64 = 0,
        periodStart: Double = 0, periodDuration: Double? = nil
    ) -> LiveSegments {
        LiveSegments(
            timing: LiveTiming(
                availabilityStartTime: Self.ast, timeShiftBufferDepth: depth, suggestedPresentationDelay: delay),
            template: SegmentTemplate(
                media: "v-$Number$.m4s", startNumber: startNumber, timescale: 1_000, duration: 2_000,
                presentationTimeOffset: offset, availabilityTimeOffset: ato),
            periodStart: periodStart, periodDuration: periodDuration)
    }

    @Test func aNumberedSegmentExistsOnceItIsComplete() throws {
        let live = numbered()
        let now = Self.ast + 10.5
        let slots = try live.available(now: now)
        #expect(slots.map(\.number) == [1, 2, 3, 4, 5], "segments ending at 2, 4 … 10 s; the one ending at 12 is not")
        #expect(slots.last?.availableAt == Self.ast + 10)
        #expect(slots.last?.time == 8_000 && slots.last?.duration == 2_000 && slots.last?.start == 8)
        #expect(try live.available(now: Self.ast + 1.99).isEmpty, "nothing before the first segment is complete")
        #expect(try live.available(now: Self.ast + 12).map(\.number).last == 6, "complete at exactly 12 s")
    }

    @Test func theTimeShiftWindowDropsWhatEndedTooLongAgo() throws {
        let slots = try numbered(depth: 6).available(now: Self.ast + 10.5)
        #expect(slots.map(\.number) == [3, 4, 5], "the window starts at 4.5 s: the segment 4–6 s is the oldest")
        #expect(try numbered(depth: 6).available(now: Self.ast + 10.5, after: 4).map(\.number) == [5])
        #expect(try numbered().available(now: Self.ast + 10.5, limit: 2).map(\.number) == [1, 2])
    }

    @Test func startNumberOffsetAndPeriodStartPlaceEverySegment() throws {
        let live = numbered(startNumber: 100, offset: 5_000, periodStart: 60)
        #expect(try live.available(now: Self.ast + 61).isEmpty, "the Period began 1 s ago")
        let slots = try live.available(now: Self.ast + 66)
        #expect(slots.map(\.number) == [100, 101, 102])
        #expect(slots.map(\.time) == [5_000, 7_000, 9_000], "media time from @presentationTimeOffset")
        #expect(slots.map(\.availableAt) == [Self.ast + 62, Self.ast + 64, Self.ast + 66])
    }

    @Test func anAvailabilityTimeOffsetMakesASegmentAvailableEarlierButNeverBeforeItStarts() throws {
        #expect(try numbered(ato: 1.5).available(now: Self.ast + 10.5).map(\.number).last == 6)
        #expect(try numbered(ato: .infinity).available(now: Self.ast + 10.5).map(\.number).last == 6)
        #expect(try numbered(ato: .infinity).available(now: Self.ast + 10.5).last?.availableAt == Self.ast + 10)
    }

    @Test func aPeriodThatEndedHasItsLastSegmentCut() throws {
        let slots = try numbered(periodDuration: 7).available(now: Self.ast + 100)
        #expect(slots.map(\.number) == [1, 2, 3, 4])
        #expect(slots.last?.duration == 1_000, "6–7 s")
        #expect(try numbered(periodDuration: 7).available(now: Self.ast + 100, after: 4).isEmpty)
    }

    @Test func nothingIsAvailableAfterTheAvailabilityEndTime() throws {
        var live = numbered()
        live = LiveSegments(
            timing: LiveTiming(availabilityStartTime: Self.ast, availabilityEndTime: Self.ast + 50),
            template: live.template, periodStart: 0, periodDuration: nil)
        #expect(try live.available(now: Self.ast + 50).count == 25)
        #expect(try live.available(now: Self.ast + 51).isEmpty)
    }

    @Test func theLiveEdgeIsTheSuggestedDelayBehindNow() throws {
        #expect(try numbered(delay: 4).liveEdge(now: Self.ast + 10.5)?.number == 4, "6.5 s: the one from 6 s")
        #expect(try numbered().liveEdge(now: Self.ast + 10.5)?.number == 3, "three segments back without a delay")
        #expect(try numbered(depth: 6, delay: 600).liveEdge(now: Self.ast + 10.5)?.number == 3, "the oldest kept")
        #expect(try numbered().liveEdge(now: Self.ast + 1) == nil)
    }

    @Test func aTimelineListsWhatExistsAndRepeatsTheLastRunUpToNow() throws {
        let timeline = SegmentTimeline(entries: [
            .init(time: 900_000, duration: 180_000, repeatCount: 2), .init(duration: 180_000, repeatCount: -1),
        ])
        let template = SegmentTemplate(
            media: "a-$Time$.m4s", startNumber: 7, timescale: 90_000, timeline: timeline)
        let live = LiveSegments(
            timing: LiveTiming(availabilityStartTime: Self.ast), template: template, periodStart: 0,
            periodDuration: nil)
        let slots = try live.available(now: Self.ast + 21)
        #expect(slots.map(\.start) == [10, 12, 14, 16, 18], "the segment 20–22 s is not complete at 21 s")
        #expect(slots.map(\.number) == [7, 8, 9, 10, 11])
        #expect(slots.first?.time == 900_000)
        let windowed = LiveSegments(
            timing: LiveTiming(availabilityStartTime: Self.ast, timeShiftBufferDepth: 8), template: template,
            periodStart: 0, periodDuration: nil)
        #expect(try windowed.available(now: Self.ast + 21).map(\.start) == [12, 14, 16, 18])
        #expect(try windowed.available(now: Self.ast + 21, after: 9).map(\.number) == [10, 11])
    }

    /// The box's clock five minutes behind the origin's: on its own clock it would see 150 segments fewer than
    /// exist; on the origin's clock, measured from a `Date` header, it sees exactly what exists — and a box ahead
    /// would ask for segments not yet made.
    @Test func aBoxWhoseClockIsOffAsksForWhatExistsOnTheOriginsClock() throws {
        let live = numbered(depth: 1_000)
        let origin = Self.ast + 900
        let boxSent = origin - 300 - 0.1, boxReceived = origin - 300 + 0.1
        let date = try #require(HTTPDate.seconds("Tue, 14 Nov 2023 22:28:20 GMT"))
        #expect(date == origin)
        let clock = OriginClock(originTime: date, sentAt: boxSent, receivedAt: boxReceived)
        let onOrigin = try live.available(now: clock.now(local: boxReceived))
        let onBox = try live.available(now: boxReceived)
        #expect(onOrigin.last?.number == 450)
        #expect(onOrigin.last!.number - onBox.last!.number == 150)
        #expect(try live.available(now: origin + 300).last!.number > 450, "a box ahead would ask for the future")
    }

    @Test func aLiveRepresentationNeedsADurationOrATimeline() {
        let live = LiveSegments(
            timing: LiveTiming(availabilityStartTime: Self.ast), template: SegmentTemplate(media: "x-$Number$"),
            periodStart: 0, periodDuration: nil)
        #expect(throws: DASHError.self) { try live.available(now: Self.ast + 10) }
    }

    @Test func numbersThatWouldOverflowAreRefusedNotWrapped() {
        let live = numbered(startNumber: UInt64.max - 2)
        #expect(throws: DASHError.self) { try live.available(now: Self.ast + 100) }
    }
}
