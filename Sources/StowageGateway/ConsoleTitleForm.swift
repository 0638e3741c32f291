import Foundation
import StowageProtocol

/// The console's add-title form as JSON (`POST /api/console/preview` and `POST /api/titles`): `url`, and optionally
/// `name`, `id`, `bitrate`, `maxHeight`, `audio` and `subtitles` (comma-separated languages; `all` or `none` for
/// subtitles) — `stowctl submit`'s basics, checked the same way, each refusal naming the field.
struct ConsoleTitleForm: Decodable, Sendable {
    var url: String
    var name: String?
    var id: String?
    var bitrate: Int?
    var maxHeight: Int?
    var audio: String?
    var subtitles: String?

    /// The form in a request body (at most ``Gateway/maxBodyBytes``).
    static func decode(_ body: String) throws -> ConsoleTitleForm {
        let form: ConsoleTitleForm
        do {
            form = try JSONDecoder().decode(ConsoleTitleForm.self, from: Data(body.utf8))
        } catch DecodingError.keyNotFound(let key, _) {
            throw Self.refusal("the form has no '\(key.stringValue)'")
        } catch DecodingError.typeMismatch(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw Self.refusal("'\(field)' has the wrong type (\(context.debugDescription))")
        } catch {
            throw Self.refusal("the body is not the add-title form's JSON ({\"url\": …})")
        }
        try form.check()
        return form
    }

    /// Refuses what `stowctl submit` refuses before asking the scheduler.
    func check() throws {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw Self.refusal("url: give the playlist's URL") }
        guard let scheme = URL(string: trimmed)?.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw Self.refusal("url: '\(trimmed.prefix(200))' is not an http(s) URL of an HLS playlist or DASH MPD")
        }
        if let bitrate, bitrate <= 0 { throw Self.refusal("bitrate: must be a positive number of bits per second") }
        if let maxHeight, maxHeight <= 0 { throw Self.refusal("maxHeight: must be a positive number of pixels") }
        if let name, name.count > 200 { throw Self.refusal("name: at most 200 characters") }
        do { try selection.checkNumbers() } catch { throw Self.refusal("\(error)") }
    }

    var selection: Selection {
        let list = { (text: String?) -> [String]? in
            guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return Selection(bitrate: bitrate, maxHeight: maxHeight, audio: list(audio), subtitles: list(subtitles))
    }

    var trimmedURL: String { url.trimmingCharacters(in: .whitespaces) }

    /// What the scheduler is asked to resolve for the preview (the title's own first step).
    var work: ResolveWork { ResolveWork(url: trimmedURL, headers: [], selection: selection) }

    /// The submit, as `stowctl submit URL [--name] [--id] [selection]` sends it.
    var submitRequest: SubmitRequest {
        let named = name?.trimmingCharacters(in: .whitespaces)
        var request = SubmitRequest(
            url: trimmedURL, name: named?.isEmpty == false ? named : nil, priority: 0, headers: [],
            selection: selection)
        if let id = id?.trimmingCharacters(in: .whitespaces), !id.isEmpty { request.id = id }
        return request
    }

    static func refusal(_ message: String) -> GatewayError { GatewayError(.badRequest, .refused, message) }
}
