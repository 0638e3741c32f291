import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

@testable import StowageSchedulerService

/// A worker's reports are numbers from outside too: one no file can make is dropped as malformed, and the title's
/// status (which sums them) still answers.
@Suite struct HostileWorkerServiceTests {
    @Test func aReportOfMoreBytesThanADiskHoldsIsDropped() throws {
        let d = try ServiceDriver()
        d.register("dl", .download)
        d.register("lic", .license)
        let token = try d.submit()
        d.answer("dl", try d.task(for: "dl"), .resolved(ServiceDriver.plan(files: 2)))
        d.answer(
            "lic", try d.task(for: "lic"),
            .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: d.clock.now()))))
        let fetches = try d.tasks(for: "dl")
        let first = try #require(fetches.first)
        try d.fetchedAll("dl", first)
        let dropped = d.service.metrics.droppedMessages
        d.deliver(
            "dl", FrameCodec.encode(.progress, TaskProgress(taskID: fetches.last!.taskID, token: token, bytes: .max)))
        #expect(d.service.metrics.droppedMessages == dropped + 1, "the progress report is dropped")
        var report = ServiceDriver.hashed(1_000)
        report.bytes = .max
        d.answer("dl", fetches.last!, .fetched(report))
        #expect(d.service.metrics.droppedMessages == dropped + 2, "the result is dropped")
        let status = try d.status(token)
        #expect(status.bytesDownloaded < 1 << 50, "\(status.bytesDownloaded)")
    }
}
