import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address as its bytes (4 or 16), for deciding whether Stowage may connect to it
/// (``NetworkPolicy``). An IPv6 address that carries an IPv4 one (`::ffff:127.0.0.1`, NAT64 `64:ff9b::/96` and
/// `64:ff9b:1::/48`, SIIT `::ffff:0:0/96`, 6to4 `2002::/16`, the old `::a.b.c.d`) is judged as that IPv4 address:
/// the packets reach it.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public let bytes: [UInt8]

    /// From 4 or 16 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// From its text (`10.0.0.1`, `::1`, `[fe80::1]`, `fe80::1%eth0`); nil when it is not an address (a host name).
    public init?(_ text: String) {
        var text = text
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        bytes = withUnsafeBytes(of: &v6) { Array($0) }
    }

    /// 4 bytes: an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4, IPv4-compatible), or nil.
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let b = bytes
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff {
            return IPAddress(bytes: Array(b[12...]))
        }
        if b[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0][...] {
            return IPAddress(bytes: Array(b[12...]))
        }
        // Local-use NAT64 (64:ff9b:1::/48, RFC 8215) and SIIT's ::ffff:0:a.b.c.d (RFC 2765) carry it last too.
        if b[0..<6] == [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01][...] { return IPAddress(bytes: Array(b[12...])) }
        if b[0..<8].allSatisfy({ $0 == 0 }) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0 {
            return IPAddress(bytes: Array(b[12...]))
        }
        if b[0] == 0x20 && b[1] == 0x02 { return IPAddress(bytes: Array(b[2..<6])) }
        // `::a.b.c.d` (deprecated IPv4-compatible), but not `::` and `::1`.
        if b[0..<12].allSatisfy({ $0 == 0 }) && !(b[12..<15].allSatisfy({ $0 == 0 }) && b[15] <= 1) {
            return IPAddress(bytes: Array(b[12...]))
        }
        return nil
    }

    /// This address, or the IPv4 address it carries: what policies judge.
    public var effective: IPAddress { embeddedIPv4 ?? self }

    /// The usual text: dotted quad, or RFC 5952 IPv6 (`inet_ntop`).
    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
