import Foundation
import StowageRuntime
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a host answers at all: a TCP connection to `host:port` (name resolved, then a non-blocking connect
/// with a deadline). Runs on its own thread, never on the scheduler's poll loop; the answer comes back through
/// a ``Mailbox``.
///
/// A probe asks only "does anything accept connections there": the fetch that follows applies the usual
/// HTTP rules. It runs where the scheduler runs; workers on other hosts may see the network differently,
/// which is why a resumed title whose fetches still fail goes back to waiting.
enum HostProbe {
    /// `host:port` of an http(s) URL (port defaulting by scheme), or nil.
    static func endpoint(of url: String) -> String? {
        guard let u = URL(string: url), let host = u.host, !host.isEmpty else { return nil }
        let port = u.port ?? (u.scheme?.lowercased() == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Splits `host:port` (or `[v6]:port`).
    static func split(_ endpoint: String) -> (host: String, port: String)? {
        guard let colon = endpoint.lastIndex(of: ":") else { return nil }
        var host = String(endpoint[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = String(endpoint[endpoint.index(after: colon)...])
        guard !host.isEmpty, Int(port) != nil else { return nil }
        return (host, port)
    }

    /// Starts a probe on a new thread; the result is posted to `inbox`.
    static func start(
        _ endpoint: String, inbox: Mailbox<(endpoint: String, reachable: Bool)>, timeout: Double = 5
    ) {
        Thread.detachNewThread {
            inbox.post((endpoint, reachable(endpoint, timeout: timeout)))
        }
    }

    /// Blocking: true when a TCP connection to the endpoint is accepted within `timeout` seconds.
    static func reachable(_ endpoint: String, timeout: Double) -> Bool {
        guard let (host, port) = split(endpoint) else { return false }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let ai = next {
            if connects(ai.pointee, timeout: timeout) { return true }
            next = ai.pointee.ai_next
        }
        return false
    }

    private static func connects(_ ai: addrinfo, timeout: Double) -> Bool {
        let fd = socket(
            ai.ai_family, ai.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            ai.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if connect(fd, ai.ai_addr, ai.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return false }
        return error == 0
    }
}
