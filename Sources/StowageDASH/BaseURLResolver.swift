import Foundation

/// Resolves BaseURLs and segment URLs against their parents, refusing what Stowage will not fetch.
enum BaseURLResolver {
    /// At most this many alternatives are kept per level (several BaseURLs at several levels multiply).
    static let maxAlternatives = 16

    /// Resolves `reference` (relative or absolute) against `base`; only http(s) URLs with a host are accepted.
    static func resolve(_ reference: String, against base: String, element: String) throws(DASHError) -> String {
        let reference = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reference.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw DASHError(
                .refusedURI, element: element, "\(element) '\(reference.prefix(80))' has control characters")
        }
        guard let baseURL = URL(string: base) else {
            throw DASHError(.refusedURI, element: element, "base URL '\(base.prefix(80))' is not a valid URL")
        }
        guard
            let resolved = URL(string: reference, relativeTo: baseURL)?.absoluteURL
                ?? URL(
                    string: reference.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? "",
                    relativeTo: baseURL)?.absoluteURL
        else {
            throw DASHError(.refusedURI, element: element, "\(element) '\(reference.prefix(80))' is not a valid URL")
        }
        guard let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https",
            resolved.host != nil
        else {
            throw DASHError(
                .refusedURI, element: element,
                "\(element) '\(reference.prefix(80))' is not an http(s) URL with a host")
        }
        return resolved.absoluteString
    }

    /// The alternatives of one level: every `BaseURL` child resolved against every parent alternative
    /// (child order first, then parent order), duplicates removed. No BaseURL child: the parents unchanged.
    static func alternatives(_ node: XMLNode, parents: [String]) throws(DASHError) -> [String] {
        let references = ordered(node.children("BaseURL"), preferring: node).map(\.text)
        guard !references.isEmpty else { return parents }
        var result: [String] = []
        for reference in references {
            for parent in parents {
                let url = try resolve(reference, against: parent, element: "BaseURL")
                if !result.contains(url) { result.append(url) }
                if result.count == maxAlternatives { return result }
            }
        }
        return result
    }

    /// `BaseURL`s in the order to try them: those whose `serviceLocation` the MPD's `ContentSteering` names as its
    /// `defaultServiceLocation` (a list, first preferred) come first; the document's order otherwise.
    static func ordered(_ baseURLs: [XMLNode], preferring node: XMLNode) -> [XMLNode] {
        guard let steering = node.children("ContentSteering").first?.attribute("defaultServiceLocation") else {
            return baseURLs
        }
        let preferred = steering.split(whereSeparator: \.isWhitespace).map(String.init)
        let rank = { (b: XMLNode) in b.attribute("serviceLocation").flatMap(preferred.firstIndex) ?? preferred.count }
        return baseURLs.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
    }

    /// The places the MPD and its Periods name (their `BaseURL`s, resolved), each with its `serviceLocation`
    /// (else nil), in order: what `status` calls the title's pathways.
    static func serviceLocations(_ node: XMLNode, parents: [String]) -> [MPD.ServiceLocation] {
        var result: [MPD.ServiceLocation] = []
        for b in ordered(node.children("BaseURL"), preferring: node) {
            for parent in parents {
                guard let url = try? resolve(b.text, against: parent, element: "BaseURL") else { continue }
                if !result.contains(where: { $0.url == url }) {
                    result.append(MPD.ServiceLocation(url: url, name: b.attribute("serviceLocation")))
                }
            }
        }
        return Array(result.prefix(maxAlternatives))
    }

    /// `reference` against each alternative, in order, duplicates removed.
    static func resolve(_ reference: String, against bases: [String], element: String) throws(DASHError) -> [String] {
        var result: [String] = []
        for base in bases {
            let url = try resolve(reference, against: base, element: element)
            if !result.contains(url) { result.append(url) }
        }
        return result
    }
}
