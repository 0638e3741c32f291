import StowageProtocol

/// A catalogue title's priority: a number (as `submit --priority`) or `"urgent"`.
public enum CatalogPriority: Codable, Sendable, Equatable {
    case number(Int)
    case urgent

    /// The priorities a title may have (``SubmitRequest/priorityRange``).
    public static let range = SubmitRequest.priorityRange

    /// The queue priority it stands for (urgent goes before any number a catalogue gives).
    public var value: Int {
        switch self {
        case .number(let n): n
        case .urgent: 1_000_000
        }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let n = try? container.decode(Int.self) {
            guard Self.range.contains(n), n != Self.range.upperBound else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "priority \(n) is outside -1000000...999999")
            }
            self = .number(n)
        } else if try container.decode(String.self) == "urgent" {
            self = .urgent
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "priority is a number or \"urgent\"")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let n): try container.encode(n)
        case .urgent: try container.encode("urgent")
        }
    }
}
