import Foundation

/// A range of addresses written as CIDR (`10.0.0.0/8`, `fd00::/8`, or one address): the operator's
/// `--allow-networks` and `--deny-networks`, and the address classes of ``AddressClass``.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address (bits past the prefix are ignored when matching).
    public let base: IPAddress
    /// Leading bits that must match (0…32 for IPv4, 0…128 for IPv6).
    public let prefixLength: Int

    /// nil unless `base` is an address and `prefixLength` fits it.
    public init?(_ base: IPAddress, prefixLength: Int) {
        guard prefixLength >= 0, prefixLength <= base.bytes.count * 8 else { return nil }
        self.base = base
        self.prefixLength = prefixLength
    }

    /// From `ADDRESS/BITS` or a lone address (all its bits); nil when malformed.
    public init?(parsing text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = IPAddress(String(parts[0])) else { return nil }
        let bits = parts.count == 2 ? Int(parts[1]) : address.bytes.count * 8
        guard let bits, parts.count == 1 || parts[1].allSatisfy(\.isNumber) else { return nil }
        self.init(address, prefixLength: bits)
    }

    /// Networks from a comma-separated option value; throws naming the first entry that is not CIDR.
    public static func list(parsing text: String) throws(NetworkListError) -> [IPNetwork] {
        try text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .map { (entry) throws(NetworkListError) in
                guard let network = IPNetwork(parsing: entry) else { throw NetworkListError(entry: entry) }
                return network
            }
    }

    /// `address` lies in this network (an IPv4 network also holds the IPv6 forms that carry its addresses).
    public func contains(_ address: IPAddress) -> Bool {
        let candidate = address.bytes.count == base.bytes.count ? address : address.effective
        guard candidate.bytes.count == base.bytes.count else { return false }
        var left = prefixLength
        for (a, b) in zip(candidate.bytes, base.bytes) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xff : ~(0xff >> UInt8(left))
            if a & mask != b & mask { return false }
            left -= 8
        }
        return true
    }

    /// `base/prefixLength`, as parsed.
    public var description: String { "\(base)/\(prefixLength)" }
}

extension IPNetwork: Codable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let network = IPNetwork(parsing: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an address range (CIDR)"))
        }
        self = network
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// An `--allow-networks` / `--deny-networks` entry that is not an address range.
public struct NetworkListError: Error, CustomStringConvertible {
    public let entry: String
    public var description: String {
        "'\(entry)' is not an address range: write it as CIDR, e.g. 10.0.0.0/8, fd00::/8 or 192.168.1.20"
    }
}
