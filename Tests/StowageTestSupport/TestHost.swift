import Foundation

/// A second test host: a network namespace joined to this one by a veth pair (`ip netns`, needs root and
/// iproute2). `cut()` takes its link down, as if its cable were pulled; `restore()` brings it back. Where
/// network namespaces cannot be made, ``make()`` throws saying which step failed: the test fails, it never
/// passes by pretending.
public final class TestHost: Sendable {
    public let namespace: String
    /// This host's address as the other host sees it, and the address of the first host from here.
    public let address: String
    public let peerAddress: String
    private let outerLink: String
    private let innerLink: String
    private init(namespace: String, address: String, peerAddress: String, outerLink: String, innerLink: String) {
        self.namespace = namespace
        self.address = address
        self.peerAddress = peerAddress
        self.outerLink = outerLink
        self.innerLink = innerLink
    }

    public static func make() throws -> TestHost {
        // Suites run side by side (Deploy/test-suites.sh): take a /24 no other test host holds now.
        let taken = Self.addressesInUse()
        let free = (1...250).filter { !taken.contains("10.77.\($0).1") }
        guard let n = free.randomElement() else {
            throw HarnessError("all 250 test host subnets 10.77.*.0/24 are in use")
        }
        let tag = String(UInt16.random(in: 0...UInt16.max), radix: 16)
        let ns = "stw-\(tag)", outer = "stw\(tag)a", inner = "stw\(tag)b"
        let outerAddress = "10.77.\(n).1", innerAddress = "10.77.\(n).2"
        let steps = [
            ["netns", "add", ns],
            ["link", "add", outer, "type", "veth", "peer", "name", inner],
            ["link", "set", inner, "netns", ns],
            ["addr", "add", "\(outerAddress)/24", "dev", outer],
            ["link", "set", outer, "up"],
            ["netns", "exec", ns, "ip", "addr", "add", "\(innerAddress)/24", "dev", inner],
            ["netns", "exec", ns, "ip", "link", "set", inner, "up"],
            ["netns", "exec", ns, "ip", "link", "set", "lo", "up"],
        ]
        for step in steps {
            let status = ip(step)
            guard status != 0 else { continue }
            _ = ip(["link", "del", outer])
            _ = ip(["netns", "del", ns])
            throw HarnessError(
                "cannot make a second test host: `ip \(step.joined(separator: " "))` exited \(status) "
                    + "(network namespaces need root and iproute2; Deploy/test.sh installs iproute2)")
        }
        return TestHost(
            namespace: ns, address: innerAddress, peerAddress: outerAddress, outerLink: outer, innerLink: inner)
    }

    public func cut() { _ = Self.ip(["netns", "exec", namespace, "ip", "link", "set", innerLink, "down"]) }

    public func restore() { _ = Self.ip(["netns", "exec", namespace, "ip", "link", "set", innerLink, "up"]) }

    public func remove() {
        _ = Self.ip(["link", "del", outerLink])
        _ = Self.ip(["netns", "del", namespace])
    }

    /// The IPv4 addresses this host's interfaces hold now (`ip -o -4 addr show`).
    static func addressesInUse() -> Set<String> {
        let p = Process(), pipe = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["-o", "-4", "addr", "show"]
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return [] }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return Set(
            text.split(separator: " ").compactMap { word in
                word.contains("/") ? word.split(separator: "/").first.map(String.init) : nil
            })
    }

    @discardableResult
    public static func ip(_ arguments: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }
}
