import Foundation
import Hummingbird
import NIOCore
import StowageProtocol

/// One title as `/api/titles` and `/events` show it: the contract's status object plus `poster` (a path
/// under the gateway, or null), `entry` (where to play it) and `playReason` (why it cannot be played offline).
public struct LibraryEntry: Encodable, Sendable {
    public var status: TitleStatus
    public var poster: String?
    public var entry: String
    public var playReason: String?

    private enum Extra: String, CodingKey { case poster, entry, playReason }

    public func encode(to encoder: any Encoder) throws {
        try status.encode(to: encoder)
        var container = encoder.container(keyedBy: Extra.self)
        try container.encode(poster, forKey: .poster)
        try container.encode(entry, forKey: .entry)
        try container.encode(playReason, forKey: .playReason)
    }
}

extension Gateway {
    /// The library entry of a title, as any credential of the gateway sees it (``shown(_:entry:)``).
    func entry(_ status: TitleStatus) -> LibraryEntry {
        let entry = "/titles/\(status.token)/\(entryPlaylist(status))"
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
        return LibraryEntry(status: status, poster: posterPath(status), entry: entry, playReason: reason)
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
        return status
    }

    /// `GET /api/titles`: every title.
    func titleList() async throws -> Response {
        Self.json(try await backend.list().map(entry))
    }

    /// The library page's HTML.
    func libraryPage(_ identity: Identity, csrfToken: String?) async throws -> Response {
        let entries = try await backend.list().map(entry)
        return Self.html(LibraryPage.render(entries, principal: identity.principal, csrfToken: csrfToken))
    }

    /// `GET /events`: server-sent events, one `data:` line of the library entry JSON per title event. Each
    /// credential holds at most ``EventStreamPlaces/perCredential`` streams at once (429 beyond); a stream's place
    /// is freed as soon as its client has gone (`gone`), not at the next event it could no longer write.
    func events(_ identity: Identity, gone: EventLoopFuture<Void>?) throws -> Response {
        let place = try eventStreams.take(identity.principal)
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
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            defer {
                place.release()
                relay.finish()
            }
            try await writer.write(ByteBuffer(string: ": stowage events\nretry: 2000\n\n"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for await event in events {
                let data = try encoder.encode(self.entry(event.status))
                try await writer.write(
                    ByteBuffer(string: "data: " + String(decoding: data, as: UTF8.self) + "\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
