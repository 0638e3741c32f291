import Foundation

/// The compact binary form of the protocol's long lists: a plan's resources, a fetch batch's items and its
/// results. They travel inside the JSON body as one base64 string (`packedResources`, `packedItems`,
/// `packedResults`) instead of one JSON object per element, which cost more to make and read than the
/// fetch itself on small segments. Layout (PROTOCOL.md): a format byte (``PackedWriter/format``), then the
/// element count and the elements; integers are LEB128 varints (signed ones zigzag-encoded), strings a
/// varint byte count and UTF-8, optional values a presence byte, doubles 8 bytes little-endian.
public struct PackedWriter: Sendable {
    /// Bumped when the layout of any packed list changes.
    public static let format: UInt8 = 1
    public private(set) var bytes: [UInt8]

    public init(count: Int) {
        bytes = [Self.format]
        bytes.reserveCapacity(64 + count * 96)
        uint(UInt64(count))
    }

    public mutating func uint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    public mutating func int(_ value: Int64) { uint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    public mutating func int(_ value: Int) { int(Int64(value)) }

    public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    public mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            uint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    public mutating func optional(_ value: Int64?) {
        bool(value != nil)
        if let value { int(value) }
    }

    public mutating func optional(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }

    /// One byte: 0 nil, 1 false, 2 true.
    public mutating func optional(_ value: Bool?) { bytes.append(value.map { $0 ? 2 : 1 } ?? 0) }

    public mutating func optional(_ values: [String]?) {
        bool(values != nil)
        if let values {
            uint(UInt64(values.count))
            for v in values { string(v) }
        }
    }
}

/// Reads what ``PackedWriter`` wrote. Never traps on what a peer sent: a short, overlong or malformed list
/// throws ``PackedError`` naming the field and the offset.
public struct PackedReader: Sendable {
    private let bytes: [UInt8]
    private var offset = 0
    /// The number of elements the list says it holds (checked against the bytes left).
    public private(set) var count = 0

    public init(_ data: Data) throws(PackedError) {
        bytes = [UInt8](data)
        guard let first = bytes.first else { throw PackedError("an empty packed list (no format byte)") }
        guard first == PackedWriter.format else {
            throw PackedError("packed format \(first), this build reads format \(PackedWriter.format)")
        }
        offset = 1
        let n = try uint("count")
        // Every element takes at least one byte: a larger count is a lie that must not size an allocation.
        guard n <= UInt64(bytes.count - offset) else {
            throw PackedError("count \(n) is more than the \(bytes.count - offset) bytes that follow")
        }
        count = Int(n)
    }

    /// True when every byte was read (checked after the last element).
    public var isAtEnd: Bool { offset == bytes.count }

    public mutating func end() throws(PackedError) {
        guard isAtEnd else { throw PackedError("\(bytes.count - offset) bytes left over after \(count) elements") }
    }

    public mutating func uint(_ field: String) throws(PackedError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw PackedError("\(field): the list ends inside a number") }
            let byte = bytes[offset]
            offset += 1
            guard shift < 64, shift < 63 || byte <= 1 else { throw PackedError("\(field): a number over 64 bits") }
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    public mutating func int(_ field: String) throws(PackedError) -> Int64 {
        let z = try uint(field)
        return Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1)))
    }

    public mutating func int(_ field: String) throws(PackedError) -> Int {
        let v: Int64 = try int(field)
        guard let i = Int(exactly: v) else { throw PackedError("\(field): \(v) is out of range") }
        return i
    }

    public mutating func bool(_ field: String) throws(PackedError) -> Bool {
        guard offset < bytes.count else { throw PackedError("\(field): the list ends early") }
        let byte = bytes[offset]
        offset += 1
        guard byte <= 1 else { throw PackedError("\(field): \(byte) is not 0 or 1") }
        return byte == 1
    }

    public mutating func double(_ field: String) throws(PackedError) -> Double {
        guard bytes.count - offset >= 8 else { throw PackedError("\(field): the list ends inside a number") }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        offset += 8
        return Double(bitPattern: bits)
    }

    public mutating func string(_ field: String) throws(PackedError) -> String {
        let n = try uint(field)
        guard n <= UInt64(bytes.count - offset) else {
            throw PackedError("\(field): \(n) bytes announced, \(bytes.count - offset) left")
        }
        let end = offset + Int(n)
        guard let s = String(validating: bytes[offset..<end], as: UTF8.self) else {
            throw PackedError("\(field): not UTF-8")
        }
        offset = end
        return s
    }

    public mutating func optionalInt(_ field: String) throws(PackedError) -> Int64? {
        try bool(field) ? (try int(field) as Int64) : nil
    }

    public mutating func optionalString(_ field: String) throws(PackedError) -> String? {
        try bool(field) ? (try string(field)) : nil
    }

    public mutating func optionalBool(_ field: String) throws(PackedError) -> Bool? {
        guard offset < bytes.count else { throw PackedError("\(field): the list ends early") }
        let byte = bytes[offset]
        offset += 1
        switch byte {
        case 0: return nil
        case 1: return false
        case 2: return true
        default: throw PackedError("\(field): \(byte) is not 0, 1 or 2")
        }
    }

    public mutating func optionalStrings(_ field: String) throws(PackedError) -> [String]? {
        guard try bool(field) else { return nil }
        let n = try uint(field)
        guard n <= UInt64(bytes.count - offset) else { throw PackedError("\(field): count \(n) is too large") }
        var values: [String] = []
        values.reserveCapacity(Int(n))
        for _ in 0..<n { values.append(try string(field)) }
        return values
    }

    /// A raw-value enum (`Container`, `PlannedResource.Kind`), named in the error when unknown.
    public mutating func value<T: RawRepresentable>(_ type: T.Type, _ field: String) throws(PackedError) -> T
    where T.RawValue == String {
        let raw = try string(field)
        guard let value = T(rawValue: raw) else { throw PackedError("\(field): unknown value '\(raw.prefix(40))'") }
        return value
    }
}

/// A packed list that cannot be read: what was wrong and where.
public struct PackedError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

extension KeyedDecodingContainer {
    /// Reads a packed list at `key` with `read` (once per element), as a `DecodingError` naming the key when
    /// anything is wrong.
    func decodePacked<T>(
        forKey key: Key, _ read: (inout PackedReader) throws(PackedError) -> T
    ) throws -> [T] {
        let data = try decode(Data.self, forKey: key)
        do {
            var reader = try PackedReader(data)
            var values: [T] = []
            values.reserveCapacity(reader.count)
            for _ in 0..<reader.count { values.append(try read(&reader)) }
            try reader.end()
            return values
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: error.description)
        }
    }
}
