/// `SegmentTemplate@media` / `@initialization` substitution (ISO/IEC 23009-1 §5.3.9.4.4): `$RepresentationID$`,
/// `$Number$`, `$Time$`, `$Bandwidth$`, `$$`, with printf widths such as `$Number%05d$`.
public enum URLTemplate {
    /// The values one segment's URL is made from; nil = not available (an error if the template names it).
    public struct Values: Sendable, Equatable {
        public var representationID: String
        public var bandwidth: Int
        public var number: UInt64?
        public var time: UInt64?

        public init(representationID: String, bandwidth: Int, number: UInt64? = nil, time: UInt64? = nil) {
            self.representationID = representationID
            self.bandwidth = bandwidth
            self.number = number
            self.time = time
        }
    }

    /// Substitutes `values` into `template`, read from `SegmentTemplate@attribute` (named in errors).
    public static func expand(_ template: String, _ values: Values, attribute: String) throws(DASHError) -> String {
        var result = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let afterDollar = rest.index(after: dollar)
            guard let close = rest[afterDollar...].firstIndex(of: "$") else {
                throw DASHError.invalid("SegmentTemplate", attribute, template, "a template: a '$' is not closed")
            }
            let identifier = rest[afterDollar..<close]
            rest = rest[rest.index(after: close)...]
            if identifier.isEmpty {
                result += "$"
                continue
            }
            let name: Substring
            let format: Substring?
            if let percent = identifier.firstIndex(of: "%") {
                name = identifier[..<percent]
                format = identifier[identifier.index(after: percent)...]
            } else {
                (name, format) = (identifier, nil)
            }
            let number: UInt64
            switch name {
            case "RepresentationID":
                guard format == nil else {
                    throw DASHError.invalid(
                        "SegmentTemplate", attribute, template, "valid: $RepresentationID$ has no format")
                }
                result += values.representationID
                continue
            case "Number":
                guard let value = values.number else { throw unavailable(name, attribute, template) }
                number = value
            case "Time":
                guard let value = values.time else { throw unavailable(name, attribute, template) }
                number = value
            case "Bandwidth":
                number = UInt64(clamping: max(values.bandwidth, 0))
            default:
                throw DASHError(
                    .unsupported, element: "SegmentTemplate", attribute: attribute,
                    "SegmentTemplate@\(attribute) uses $\(name.prefix(30))$, which is not supported")
            }
            result += try formatted(number, format, attribute: attribute, template: template)
        }
        return result + rest
    }

    private static func unavailable(_ name: Substring, _ attribute: String, _ template: String) -> DASHError {
        DASHError(
            .invalidAttribute, element: "SegmentTemplate", attribute: attribute,
            "SegmentTemplate@\(attribute)='\(template.prefix(60))' uses $\(name)$, which is not available there")
    }

    /// `%0<width>d` (also `%d`, `%<width>d`, `i`, `u`, and `x`/`X` for hexadecimal).
    private static func formatted(
        _ value: UInt64, _ format: Substring?, attribute: String, template: String
    ) throws(DASHError) -> String {
        guard let format else { return String(value) }
        guard let conversion = format.last, "diuxX".contains(conversion) else {
            throw DASHError.invalid("SegmentTemplate", attribute, template, "a valid format (expected %0<width>d)")
        }
        var flags = format.dropLast()
        let zeroPad = flags.first == "0"
        if zeroPad { flags = flags.dropFirst() }
        let width: Int
        if flags.isEmpty {
            width = 0
        } else {
            guard flags.allSatisfy(\.isASCII), let w = Int(flags), w >= 0, w <= 64 else {
                throw DASHError.invalid("SegmentTemplate", attribute, template, "a valid format width (0 to 64)")
            }
            width = w
        }
        var digits: String
        switch conversion {
        case "x": digits = String(value, radix: 16)
        case "X": digits = String(value, radix: 16, uppercase: true)
        default: digits = String(value)
        }
        if digits.count < width {
            digits = String(repeating: zeroPad ? "0" : " ", count: width - digits.count) + digits
        }
        return digits
    }
}
