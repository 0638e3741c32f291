import StowageProtocol

extension URIResolver {
    /// A deliverable key's URI as the license worker will read it: an http(s) URI resolved like any other, or
    /// a `data:` URI kept as it is (the key is inline; nothing is fetched). A `data:` URI is decoded here once,
    /// so a malformed one or one of the wrong size for `method` fails the plan with what is wrong, before any
    /// media is fetched; its text is never repeated in the message (it is the key).
    static func resolveKey(_ uri: String, method: String, against base: String, line: Int?) throws(PlaylistError)
        -> String
    {
        guard DataURI.isDataURI(uri) else { return try resolve(uri, against: base, line: line) }
        do {
            _ = try DataURI.decode(uri, expectedBytes: PlannedKey.keyLength(method: method))
        } catch {
            throw PlaylistError(
                .refusedURI, url: base, line: line,
                "#EXT-X-KEY METHOD=\(method.prefix(20)) URI \(DataURI.redacted(uri)): \(error.message)")
        }
        return uri
    }
}
