import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageStore

/// A `stowctl submit` checked, and the record of the new title it makes. Checking comes in two steps, as a person
/// meets them: what any submit must get right (numbers, priority, the source and its hosts, the window), then what
/// only a new title records (its names, header hosts, a recording's duration); a submit that reuses a title
/// already there is not refused for labels it does not set. What needs the store or another concern (an id
/// already taken, operator keys, a peer's secret) is the service's.
struct Submission {
    let request: SubmitRequest
    /// The fill window as stored (normalised), nil when none is asked.
    let window: String?

    /// Refuses, naming what is wrong, a request no title may be made of.
    init(_ request: SubmitRequest, allowedHosts: HostAllowList?) throws {
        if let problem = request.numberProblem { throw TitleError(code: .refused, message: "\(problem)") }
        guard SubmitRequest.priorityRange.contains(request.priority) else {
            throw TitleError(code: .refused, message: "priority \(request.priority) is outside -1000000...1000000")
        }
        if let why = SourceURLRule.refusal(request.url, allowed: allowedHosts) {
            throw TitleError(code: .refused, message: why)
        }
        if let allowedHosts {
            for url in [request.posterURL, request.licenseURL].compactMap({ $0 }) {
                if let reason = allowedHosts.refusal(url) {
                    throw TitleError(code: .refused, message: reason + " (stowage-scheduler --allow-hosts)")
                }
            }
        }
        if let range = request.range {
            guard request.record == nil else {
                throw TitleError(
                    code: .refused,
                    message: "--range cuts a VOD title and --record records a live stream: a recording has no "
                        + "fixed media time to cut; use --duration to bound it")
            }
            guard range.from.isFinite, range.to.isFinite, range.from >= 0, range.to > range.from,
                range.to <= OutsideNumbers.maxSeconds
            else {
                throw TitleError(
                    code: .refused, message: "--range \(range) is not START-END with 0 <= START < END (seconds)")
            }
        }
        if request.file != nil {
            guard request.record == nil else {
                throw TitleError(
                    code: .refused,
                    message: "--file writes a VOD title as one file when it completes and --record records a live "
                        + "stream: remux the recording once it completes (`stowctl remux TOKEN OUT.mp4`)")
            }
            // What the submit itself says (its terms, operator keys); the source's protection is checked again
            // when the title is planned.
            if let refusal = SingleFileClearance(terms: request.terms, operatorKeys: !(request.keys ?? []).isEmpty)
                .refusal
            {
                throw TitleError(code: refusal.code, message: "--file: " + refusal.message)
            }
        }
        window = try request.window.map { text in
            do { return try FillSchedule(parsing: text).description } catch {
                throw TitleError(code: .refused, message: "--window \(error)")
            }
        }
        self.request = request
    }

    /// The record of a new title `token` requested at `now` (wall clock), or a refusal of a label it would carry.
    func newTitle(token: String, now: Double) throws -> TitleRecord {
        var stored = TitleRecord(
            token: token, url: request.url, name: request.name, state: .requested, priority: request.priority,
            selection: request.selection, headers: request.headers, requestedAt: now)
        stored.requestedTerms = request.terms
        stored.licenseURL = request.licenseURL
        stored.preloadOnly = request.preloadOnly
        stored.posterURL = request.posterURL
        stored.allowDeviceDRM = request.allowDeviceDRM ?? false
        stored.fillWindow = window
        stored.fetchNow = request.now ?? false
        stored.clipRange = request.range
        stored.singleFile = request.file
        if let hosts = request.headerHosts, !hosts.isEmpty {
            if let bad = hosts.first(where: { $0.isEmpty || $0.contains(where: { "/:@ ?#".contains($0) }) }) {
                throw TitleError(code: .refused, message: "--header-host '\(bad.prefix(100))' is not a host name")
            }
            stored.headerHosts = hosts.map { $0.lowercased() }
        }
        if let name = request.name, let why = TitleLabels.nameProblem(name) {
            throw TitleError(code: .refused, message: "--name \(why)")
        }
        if let id = request.id {
            if let why = TitleLabels.idProblem(id) { throw TitleError(code: .refused, message: "--id \(why)") }
            stored.externalID = id
        }
        if let record = request.record {
            if let d = record.durationSeconds, !(d.isFinite && d > 0) {
                throw TitleError(code: .refused, message: "--duration must be a positive duration")
            }
            stored.record = record
        }
        return stored
    }
}
