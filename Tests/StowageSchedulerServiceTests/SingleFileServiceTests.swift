import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore
import Testing

/// The single-file component through the real service: a title submitted with `--file` sends `title.mp4` to an
/// integrity worker to be written (never to a downloader) once its other files are verified, counts it when
/// written, completes without it when it could not be made or the quota has no room, and is refused at submit
/// when its license would be outlived by one file.
@Suite struct SingleFileServiceTests {
    /// Submits `request` (with `--file mp4`) and walks it through resolve and license: queued for its fetches.
    func fileTitle(_ d: ServiceDriver, files: Int = 3) throws -> String {
        d.register("dl", .download)
        d.register("lic", .license)
        var request = SubmitRequest(
            url: "http://origin.test/show/master.m3u8", name: nil, priority: 0, headers: [], selection: Selection())
        request.file = .mp4
        guard case .submitted(let token) = try d.request(.submit(request)) else { throw DriverError("submit") }
        d.answer("dl", try d.task(for: "dl"), .resolved(ServiceDriver.plan(files: files)))
        d.answer(
            "lic", try d.task(for: "lic"),
            .licensed(LicenseGrant(terms: GrantedTerms(kind: .purchase, requestedAt: d.clock.now()))))
        return token
    }

    /// The one task the integrity worker `int` has: the single file's write.
    func writeTask(_ d: ServiceDriver) throws -> (TaskAssignment, VerifyWork) {
        let tasks = try d.tasks(for: "int")
        guard tasks.count == 1, case .verify(let work) = tasks[0].work else {
            throw DriverError("not one verify task: \(tasks.map(\.work))")
        }
        return (tasks[0], work)
    }

    @Test func theFileIsWrittenByAnIntegrityWorkerThenCounted() throws {
        let d = try ServiceDriver()
        d.register("int", .integrity)
        let token = try fileTitle(d)
        try d.fetchEverything("dl")
        #expect(try d.state(token) == .verifying, "not complete while its file is not written")
        #expect(try d.status(token).file?.state == .pending)
        let (task, work) = try writeTask(d)
        #expect(work.singleFile?.format == .mp4, "\(work)")
        #expect(work.path == "\(token)/title.mp4" && work.sha256 == nil, "\(work)")
        let before = try d.status(token).bytesDownloaded
        var written = VerifyReport(ok: true, sha256: String(repeating: "cd", count: 32))
        written.bytes = 2_500
        d.answer("int", task, .verified(written))
        let status = try d.status(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        #expect(status.bytesDownloaded == before + 2_500, "the file counts in the title's size")
        #expect(status.file?.state == .written && status.file?.bytes == 2_500, "\(String(describing: status.file))")
        #expect(status.file?.path.hasSuffix("/titles/\(token)/title.mp4") == true)
        // Verified at rest by its recorded hash, not written again.
        _ = try d.request(.verify(token: token, repair: false))
        var checked = false
        for task in try d.tasks(for: "int") {
            guard case .verify(let check) = task.work else { continue }
            #expect(check.singleFile == nil, "a written file is checked, not written again")
            if check.path.hasSuffix("title.mp4") {
                checked = check.sha256 == written.sha256 && check.expectedBytes == 2_500
            }
            d.answer("int", task, .verified(VerifyReport(ok: true)))
        }
        #expect(checked, "the file is checked by its recorded hash and length")
        #expect(try d.state(token) == .completed)
    }

    @Test func aFileThatCannotBeMadeLeavesTheTitleComplete() throws {
        let d = try ServiceDriver()
        d.register("int", .integrity)
        let token = try fileTitle(d)
        try d.fetchEverything("dl")
        let (task, _) = try writeTask(d)
        var failed = VerifyReport(ok: false, reason: "title.mp4: could not be made")
        failed.notConverted = "title.mp4 could not be made: [io] ffmpeg could not write it"
        d.answer("int", task, .verified(failed))
        let status = try d.status(token)
        #expect(status.state == .completed && status.error == nil, "\(String(describing: status.error))")
        #expect(status.file?.state == .notMade && status.file?.message == failed.notConverted)
        #expect(try d.store.events(token: token).contains { $0.kind == "single-file" })
    }

    @Test func noRoomUnderTheQuotaIsRefusedNamingTheFileBeforeItIsQueued() throws {
        let d = try ServiceDriver { $0.quota = 4_500 }  // the copy is 3,000 bytes: not twice
        d.register("int", .integrity)
        let token = try fileTitle(d)
        try d.fetchEverything("dl")
        #expect(try d.tasks(for: "int").isEmpty, "nothing is written")
        let status = try d.status(token)
        #expect(status.state == .completed, "\(String(describing: status.error))")
        let message = status.file?.message ?? ""
        #expect(status.file?.state == .notMade && message.contains("[quota] title.mp4"), "\(message)")
    }

    @Test func aLicenseWithLimitsOrARecordingIsRefusedAtSubmit() throws {
        let d = try ServiceDriver()
        var request = SubmitRequest(
            url: "http://origin.test/show/master.m3u8", name: nil, priority: 0, headers: [], selection: Selection(),
            terms: RequestedTerms(kind: .rental, rentalSeconds: 86_400))
        request.file = .mkv
        guard case .error(let rental) = try d.request(.submit(request)) else {
            throw DriverError("a rental with --file was accepted")
        }
        #expect(rental.code == .refused && rental.message.contains("rental"), "\(rental)")
        request.terms = nil
        request.record = RecordRequest(durationSeconds: nil, from: .start)
        guard case .error(let recording) = try d.request(.submit(request)) else {
            throw DriverError("a recording with --file was accepted")
        }
        #expect(recording.code == .refused && recording.message.contains("--record"), "\(recording)")
        #expect(try d.store.titles(state: .requested).isEmpty)
    }
}
