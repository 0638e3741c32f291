import Foundation

/// One `UTCTiming` element of a live MPD: where the origin says what time it is. A box whose clock is minutes off
/// must still ask only for segments that exist, so a recording reads the origin's clock through the first scheme it
/// can use (DASH-IF IOP §4.7), and without any, the `Date` header of the MPD's own answer.
public struct UTCTiming: Sendable, Equatable {
    /// The schemes of ISO/IEC 23009-1 Annex G (the 2012 spellings are accepted as the 2014 ones).
    public enum Scheme: String, Sendable, Equatable {
        /// A GET whose body is an `xs:dateTime`.
        case httpXSDate = "http-xsdate"
        /// A GET whose body is an ISO 8601 date-time (read as `xs:dateTime`).
        case httpISO = "http-iso"
        /// A HEAD whose `Date` header is the time.
        case httpHead = "http-head"
        /// The value itself is the `xs:dateTime` at which the MPD was made.
        case direct
        /// NTP and SNTP: a box reaches its origins over HTTP only, so these are skipped.
        case ntp
        /// A scheme the standard does not define: skipped.
        case unknown
    }

    public var scheme: Scheme
    /// The `@schemeIdUri` as written.
    public var schemeIdUri: String
    /// `@value`: for the HTTP schemes, one or more URLs separated by spaces.
    public var value: String

    public init(schemeIdUri: String, value: String) {
        self.schemeIdUri = schemeIdUri
        self.value = value
        self.scheme = Self.scheme(of: schemeIdUri)
    }

    /// Whether a box can read the time this way.
    public var isUsable: Bool { ![.ntp, .unknown].contains(scheme) }

    /// The URLs to ask (HTTP schemes): `@value` split at spaces, each resolved against the MPD's URL; URLs that are
    /// not http(s) are dropped.
    public func urls(against mpdURL: String) -> [String] {
        guard [.httpXSDate, .httpISO, .httpHead].contains(scheme) else { return [] }
        return value.split(whereSeparator: \.isWhitespace).compactMap { part in
            guard let url = URL(string: String(part), relativeTo: URL(string: mpdURL))?.absoluteURL,
                let s = url.scheme?.lowercased(), s == "http" || s == "https", url.host != nil
            else { return nil }
            return url.absoluteString
        }
    }

    /// The origin's time from an answer: the body for `http-xsdate`/`http-iso`, the `Date` header for `http-head`,
    /// the value itself for `direct`. Nil when the answer does not hold a time.
    public func time(body: Data?, dateHeader: String?) -> Double? {
        switch scheme {
        case .httpXSDate, .httpISO:
            guard let body, body.count <= 200 else { return nil }
            return XSDateTime.seconds(String(decoding: body, as: UTF8.self))
        case .httpHead:
            return dateHeader.flatMap(HTTPDate.seconds)
        case .direct:
            return XSDateTime.seconds(value)
        case .ntp, .unknown:
            return nil
        }
    }

    static func scheme(of uri: String) -> Scheme {
        let lowered = uri.lowercased()
        let prefix = "urn:mpeg:dash:utc:"
        guard lowered.hasPrefix(prefix) else { return .unknown }
        let rest = lowered.dropFirst(prefix.count)
        guard let colon = rest.firstIndex(of: ":"), ["2012", "2014"].contains(rest[rest.index(after: colon)...])
        else { return .unknown }
        switch rest[..<colon] {
        case "http-xsdate": return .httpXSDate
        case "http-iso": return .httpISO
        case "http-head": return .httpHead
        case "direct": return .direct
        case "ntp", "sntp", "http-ntp": return .ntp
        default: return .unknown
        }
    }

    static func parse(_ node: XMLNode) throws(DASHError) -> UTCTiming {
        guard let uri = node.attribute("schemeIdUri") else { throw DASHError.missing("UTCTiming", "schemeIdUri") }
        guard let value = node.attribute("value") else { throw DASHError.missing("UTCTiming", "value") }
        return UTCTiming(schemeIdUri: uri, value: value)
    }
}
