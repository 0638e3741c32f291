import Foundation
import Hummingbird
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
    /// The library entry of a title.
    func entry(_ status: TitleStatus) -> LibraryEntry {
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
        return LibraryEntry(
            status: status, poster: posterPath(status),
            entry: "/titles/\(status.token)/\(entryPlaylist(status))", playReason: reason)
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

    /// `GET /events`: server-sent events, one `data:` line of the library entry JSON per title event.
    func events() -> Response {
        let stream = backend.titleEvents()
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": stowage events\nretry: 2000\n\n"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for await event in stream {
                let data = try encoder.encode(self.entry(event.status))
                try await writer.write(
                    ByteBuffer(string: "data: " + String(decoding: data, as: UTF8.self) + "\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
