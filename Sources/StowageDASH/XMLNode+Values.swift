import StowageProtocol

/// Typed attribute readers: each error names the element and the attribute.
extension XMLNode {
    /// A non-negative integer attribute (nil when absent).
    func unsigned(_ attribute: String) throws(DASHError) -> UInt64? {
        guard let text = self.attribute(attribute) else { return nil }
        guard let value = UInt64(text.trimmingWhitespace) else {
            throw DASHError.invalid(name, attribute, text, "a non-negative integer")
        }
        return value
    }

    /// A non-negative integer attribute that fits an `Int` (nil when absent).
    func int(_ attribute: String) throws(DASHError) -> Int? {
        guard let text = self.attribute(attribute) else { return nil }
        guard let value = Int(text.trimmingWhitespace), value >= 0 else {
            throw DASHError.invalid(name, attribute, text, "a non-negative integer")
        }
        return value
    }

    /// An integer attribute within the range of a number from outside (nil when absent): a bit rate, a size.
    func int(_ attribute: String, in field: OutsideNumber<Int>) throws(DASHError) -> Int? {
        guard let text = self.attribute(attribute) else { return nil }
        do { return try field.parse(text.trimmingWhitespace) } catch {
            throw DASHError.invalid(name, attribute, text, "a whole number in \(error.allowed)")
        }
    }

    /// A signed integer attribute (nil when absent).
    func signed(_ attribute: String) throws(DASHError) -> Int64? {
        guard let text = self.attribute(attribute) else { return nil }
        guard let value = Int64(text.trimmingWhitespace) else {
            throw DASHError.invalid(name, attribute, text, "an integer")
        }
        return value
    }

    /// A positive integer attribute (nil when absent); zero is refused.
    func positive(_ attribute: String) throws(DASHError) -> UInt64? {
        guard let value = try unsigned(attribute) else { return nil }
        guard value > 0 else { throw DASHError.invalid(name, attribute, "0", "a positive integer") }
        return value
    }

    /// An `xs:duration` attribute in seconds (nil when absent).
    func duration(_ attribute: String) throws(DASHError) -> Double? {
        guard let text = self.attribute(attribute) else { return nil }
        guard let value = ISODuration.seconds(text) else {
            throw DASHError.invalid(name, attribute, text, "an ISO 8601 duration such as PT1H2M3.5S")
        }
        return value
    }

    /// A byte-range attribute `first-last` (nil when absent).
    func byteRange(_ attribute: String) throws(DASHError) -> SegmentByteRange? {
        guard let text = self.attribute(attribute) else { return nil }
        return try SegmentByteRange.parse(text, element: name, attribute: attribute)
    }
}

extension String {
    /// Without whitespace at either end.
    var trimmingWhitespace: Substring { Substring(self).trimmed }
}
