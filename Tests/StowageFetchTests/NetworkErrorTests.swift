import Foundation
import Logging
import StowageProtocol
import Testing

@testable import StowageFetch

@Suite("Connectivity errors in words")
struct NetworkErrorTests {
    /// A port on 127.0.0.1 with nothing listening (bound, then closed).
    func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &addr) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(fd, $0, len) == 0, getsockname(fd, $0, &len) == 0 else { throw CocoaError(.fileReadUnknown) }
            }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    @Test func aRefusedConnectionNamesTheHostAndPortAndTheURLOnce() async throws {
        let port = try closedPort()
        let fetcher = HTTPFetcher(logger: Logger(label: "test"))
        defer { fetcher.syncShutdown() }
        let url = "http://127.0.0.1:\(port)/master.m3u8"
        do {
            _ = try await fetcher.fetchText(url, headers: [])
            Issue.record("a closed port answered")
        } catch {
            #expect(error.code == .network)
            #expect(error.retryable)
            #expect(error.endpoint == "127.0.0.1:\(port)")
            #expect(error.message == "\(url): connection refused by 127.0.0.1:\(port)", "\(error.message)")
        }
    }

    @Test func anUnknownHostSaysSo() async throws {
        let fetcher = HTTPFetcher(logger: Logger(label: "test"))
        defer { fetcher.syncShutdown() }
        do {
            _ = try await fetcher.fetchText("http://no-such-host.invalid/x.m3u8", headers: [])
            Issue.record("an unknown host answered")
        } catch {
            #expect(error.code == .network)
            #expect(error.message.contains("no such host no-such-host.invalid"), "\(error.message)")
            #expect(error.endpoint == "no-such-host.invalid:80")
        }
    }

    @Test func errnoTextsAreActionable() {
        #expect(NetworkErrorText.describe(errno: ECONNRESET, endpoint: "h:1") == "connection reset by h:1")
        #expect(NetworkErrorText.describe(errno: EHOSTUNREACH, endpoint: "h:1") == "no route to h:1")
        #expect(NetworkErrorText.describe(errno: ETIMEDOUT, endpoint: "h:1") == "no answer from h:1 within 30 s")
        #expect(NetworkErrorText.endpoint(of: "https://example.org/a") == "example.org:443")
        #expect(NetworkErrorText.endpoint(of: "http://[::1]:8080/a") == "[::1]:8080")
    }
}
