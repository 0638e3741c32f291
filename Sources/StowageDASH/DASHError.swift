/// An MPD (or a segment index) that cannot be used, naming the element and attribute that was wrong.
public struct DASHError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a stable code-like value.
    public enum Code: String, Sendable {
        /// The text is not well-formed XML, or an element is where it must not be.
        case malformed
        /// The document is XML but its root is not an `MPD` element.
        case notMPD = "not-mpd"
        /// `MPD@type="dynamic"` (live): the caller decides whether to record it.
        case dynamic
        /// A required attribute is absent.
        case missingAttribute = "missing-attribute"
        /// An attribute's value cannot be used.
        case invalidAttribute = "invalid-attribute"
        /// A feature Stowage does not handle (named in the message).
        case unsupported
        /// Too many segments, periods or bytes, or numbers beyond what Stowage accepts.
        case tooLarge = "too-large"
        /// A URL that is not http(s), or not a valid URL.
        case refusedURI = "refused-uri"
        /// Nothing in the MPD matches the selection.
        case nothingSelectable = "nothing-selectable"
        /// A segment index (`sidx`) that cannot be read.
        case invalidIndex = "invalid-index"
    }

    public let code: Code
    /// The element concerned (`Representation`, `S`, …), nil when the error is about the whole document.
    public let element: String?
    /// The attribute concerned (`bandwidth`, `r`, …), nil when the error is not about one attribute.
    public let attribute: String?
    /// Human-readable explanation; it names the element and attribute when there are some.
    public let message: String

    public init(_ code: Code, element: String? = nil, attribute: String? = nil, _ message: String) {
        self.code = code
        self.element = element
        self.attribute = attribute
        self.message = message
    }

    /// `Element@attribute` (or just the element), for messages.
    var location: String? {
        guard let element else { return attribute.map { "@\($0)" } }
        return attribute.map { "\(element)@\($0)" } ?? element
    }

    public var description: String {
        if let location { return "MPD \(location): \(message)" }
        return "MPD: \(message)"
    }

    static func missing(_ element: String, _ attribute: String, _ detail: String = "") -> DASHError {
        DASHError(
            .missingAttribute, element: element, attribute: attribute,
            "\(element)@\(attribute) is missing" + (detail.isEmpty ? "" : ": \(detail)"))
    }

    static func invalid(_ element: String, _ attribute: String, _ value: String, _ expected: String) -> DASHError {
        DASHError(
            .invalidAttribute, element: element, attribute: attribute,
            "\(element)@\(attribute)='\(value.prefix(60))' is not \(expected)")
    }
}
