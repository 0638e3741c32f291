/// A `Range` request header against a body of known size: one range only (`bytes=a-b`, `bytes=a-`, `bytes=-n`).
public enum RangeRequest: Equatable, Sendable {
    /// No `Range` header: the whole body (200).
    case whole
    /// The bytes to send (206), inclusive.
    case partial(ClosedRange<Int>)
    /// A range that cannot be served (416): malformed, several ranges, or past the end.
    case unsatisfiable

    /// Parses `header` (nil: no header) for a body of `size` bytes.
    public static func parse(_ header: String?, size: Int) -> RangeRequest {
        guard let header else { return .whole }
        let trimmed = header.trimmingSpaces
        guard trimmed.hasPrefix("bytes="), size > 0 else { return .unsatisfiable }
        let spec = trimmed.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .unsatisfiable }
        let a = spec[..<dash].trimmingSpaces, b = spec[spec.index(after: dash)...].trimmingSpaces
        if a.isEmpty {
            guard let n = Int(b), n > 0 else { return .unsatisfiable }
            return .partial(max(0, size - n)...(size - 1))
        }
        guard let start = Int(a), start >= 0, start < size else { return .unsatisfiable }
        guard b.isEmpty || Int(b) != nil else { return .unsatisfiable }
        let end = b.isEmpty ? size - 1 : min(Int(b)!, size - 1)
        return end >= start ? .partial(start...end) : .unsatisfiable
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
