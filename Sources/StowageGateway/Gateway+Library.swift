import Foundation
import Hummingbird
import NIOCore
import StowageProtocol

/// One title as `/api/titles` and `/events` show it: the contract's status object plus `poster` (a path
/// under the gateway, or null), `entry` (where to play it), `playReason` (why it cannot be played offline),
/// `shelf` (``LibraryVisibility/Shelf``, null when a viewer does not see it), `play` (its play page), `facts`
/// (``TitleFacts`` of a completed copy, else null) and `licenseText` (``LicenseWords``, in the box's time zone).
public struct LibraryEntry: Encodable, Sendable {
    public var status: TitleStatus
    public var poster: String?
    public var entry: String
    public var playReason: String?
    public var shelf: LibraryVisibility.Shelf?
    public var play: String
    public var facts: TitleFacts?
    public var licenseText: String

    private enum Extra: String, CodingKey { case poster, entry, playReason, shelf, play, facts, licenseText }

    public func encode(to encoder: any Encoder) throws {
        try status.encode(to: encoder)
        var container = encoder.container(keyedBy: Extra.self)
        try container.encode(poster, forKey: .poster)
        try container.encode(entry, forKey: .entry)
        try container.encode(playReason, forKey: .playReason)
        try container.encode(shelf, forKey: .shelf)
        try container.encode(play, forKey: .play)
        try container.encode(facts, forKey: .facts)
        try container.encode(licenseText, forKey: .licenseText)
    }
}

extension Gateway {
    /// The library entry of a title, as any credential of the gateway sees it (``shown(_:entry:)``).
    func entry(_ status: TitleStatus) -> LibraryEntry {
        let playlist = entryPlaylist(status)
        let entry = "/titles/\(status.token)/\(playlist)"
        let status = shown(status, entry: entry)
        var reason: String?
        if !status.playableOffline {
            if let why = status.notPlayableReason, why.code != .downloading {
                reason = why.message
            } else if status.license?.expired == true {
                reason = "the license has expired"
            } else if let error = status.error {
                reason = error.message
            } else {
                reason = status.state == .completed ? "not playable offline" : "not downloaded yet (\(status.state))"
            }
        }
        let shelf = LibraryVisibility.shelf(status)
        let directory = titlesRootPath + "/" + status.token
        var facts: TitleFacts?
        if status.state == .completed {
            facts = titleFacts.facts(directory: directory, entry: playlist, size: status.bytesDownloaded)
        }
        var poster = posterPath(status)
        if poster == nil, shelf == .playable {
            posterFrames.request(directory: directory, entry: playlist, at: min((facts?.durationSeconds ?? 10) / 5, 30))
            poster = posterPath(status)
        }
        let license = LicenseWords.text(
            status.license, now: Date(timeIntervalSince1970: wallClock()), timeZone: TimeZone.current)
        return LibraryEntry(
            status: status, poster: poster, entry: entry, playReason: reason, shelf: shelf,
            play: PlayPage.path(status.token), facts: facts, licenseText: license)
    }

    /// A title's status with no path of the host in it: devices on the LAN learn nothing of the box's file
    /// system. `localPlaylist` (the contract's absolute path, for `stowctl` on the box) becomes the gateway path
    /// of the same playlist, `entry`; the box's home in a message (an I/O error names the file) becomes
    /// `$STOWAGE_HOME`.
    func shown(_ status: TitleStatus, entry: String) -> TitleStatus {
        var status = status
        if status.localPlaylist != nil { status.localPlaylist = entry }
        let home = (titlesRootPath as NSString).deletingLastPathComponent
        guard home.count > 1 else { return status }
        let hidden = { (text: String) in text.replacingOccurrences(of: home, with: "$STOWAGE_HOME") }
        if let message = status.error?.message { status.error?.message = hidden(message) }
        if let message = status.notPlayableReason?.message { status.notPlayableReason?.message = hidden(message) }
        // The single file as a device fetches it: its path under the title, never the box's.
        if let file = status.file {
            status.file?.path = "/titles/\(status.token)/\(file.format.fileName)"
            status.file?.message = file.message.map(hidden)
        }
        return status
    }

    /// `GET /api/titles`: every title to the admin; to anyone else the titles the library shows
    /// (``LibraryVisibility``).
    func titleList(_ identity: Identity) async throws -> Response {
        let statuses = try await backend.list()
        titleFacts.keep(only: Set(statuses.map { titlesRootPath + "/" + $0.token }))
        return Self.json(statuses.filter { LibraryVisibility.isVisible($0, to: identity.principal) }.map(entry))
    }

    /// The library page's HTML: the same titles for everyone (the admin's view of the others is the console).
    func libraryPage(_ identity: Identity, csrfToken: String?) async throws -> Response {
        let entries = try await backend.list().filter { LibraryVisibility.shelf($0) != nil }.map(entry)
        return Self.html(LibraryPage.render(entries, principal: identity.principal, csrfToken: csrfToken))
    }

    /// `GET /events`: server-sent events, one `data:` line of the library entry JSON per title event the
    /// credential may see (``LibraryVisibility/isVisible(_:to:)``); a title that leaves a device's library (it
    /// failed, its license ended) is told once as `event: remove` with only its token, and only to a stream that
    /// had shown it. Each credential holds at most ``EventStreamPlaces/perCredential`` streams at once (429
    /// beyond); a stream's place is freed as soon as its client has gone (`gone`), not at the next event it could
    /// no longer write.
    func events(_ identity: Identity, gone: EventLoopFuture<Void>?) async throws -> Response {
        let place = try eventStreams.take(identity.principal)
        let principal = identity.principal
        let (events, relay) = AsyncStream.makeStream(of: TitleEvent.self, bufferingPolicy: .bufferingNewest(256))
        let source = backend.titleEvents()
        let forward = Task {
            for await event in source { relay.yield(event) }
            relay.finish()
        }
        relay.onTermination = { _ in forward.cancel() }
        gone?.whenComplete { _ in
            place.release()
            relay.finish()
        }
        var shownTokens: Set<String> = []
        do {
            shownTokens = Set(
                try await backend.list().filter { LibraryVisibility.isVisible($0, to: principal) }.map(\.token))
        } catch {
            place.release()
            relay.finish()
            throw error
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        let initial = shownTokens
        let body = ResponseBody { writer in
            defer {
                place.release()
                relay.finish()
            }
            var shown = initial
            try await writer.write(ByteBuffer(string: ": stowage events\nretry: 2000\n\n"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for await event in events {
                let token = event.status.token
                var text: String
                if LibraryVisibility.isVisible(event.status, to: principal) {
                    shown.insert(token)
                    text = "data: " + String(decoding: try encoder.encode(self.entry(event.status)), as: UTF8.self)
                } else if shown.remove(token) != nil {
                    text =
                        "event: remove\ndata: " + String(decoding: try encoder.encode(["token": token]), as: UTF8.self)
                } else {
                    continue
                }
                text += "\n\n"
                try await writer.write(ByteBuffer(string: text))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
