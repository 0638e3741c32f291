import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StowageProtocol

extension HTTPFetcher {
    /// What the running task may fetch (hosts, addresses) and where its headers may go; set by the worker around
    /// each task (`TaskAssignment.scope`), by a streaming play around its fetches. The default, for the
    /// operator's own fetches: any host, any class of address but the never-fetched ones.
    @TaskLocal public static var scope = FetchScope()

    /// Headers a redirect to a host outside the title's header hosts keeps: the public ones and the request's own.
    static let keptAcrossHosts = FetchScope.publicHeaders.union(["range", "if-range", "content-type"])

    /// Most redirects followed from one request.
    static let maxRedirects = 5

    /// A URL may be fetched: http or https, and its host allowed for the running task.
    package static func checkURL(_ url: String, reachedFrom origin: String? = nil) throws(TaskFailure) {
        let via = origin.map { "\(URLRedaction.redacted($0).prefix(200)) redirected to " } ?? ""
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            parsed.host?.isEmpty == false
        else {
            throw TaskFailure(
                code: .refused,
                message:
                    "\(via)\(URLRedaction.redacted(url).prefix(200)): only http and https URLs with a host are fetched",
                retryable: false)
        }
        if let reason = scope.allowedHosts?.refusal(url) {
            throw TaskFailure(code: .refused, message: via + reason, retryable: false)
        }
    }

    /// The client that reaches `url` at an address the running task's scope allows (``AddressGuard``): the
    /// general client for an address, a client bound to the checked address for a host name.
    func client(for url: String) async throws(TaskFailure) -> HTTPClient {
        let addresses = try await AddressGuard.shared.addresses(for: url, scope: Self.scope)
        guard let host = AddressGuard.host(of: url), IPAddress(host) == nil else { return client }
        return pinned.client(host: host, allowed: addresses)
    }

    /// Executes a request and follows redirects by hand (at most ``maxRedirects``), checking every hop's
    /// scheme, host and address and refusing loops, so no redirect can lead outside what the task may fetch.
    /// Headers go on to another host only as the scope allows (credentials never: `Authorization` and `Cookie`
    /// are dropped at any change of origin). Returns the final response and its URL.
    package func perform(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> (HTTPClientResponse, String)
    {
        var current = request
        var visited: [String] = [request.url]
        while true {
            let response = try await client(for: current.url).execute(current, timeout: timeout, logger: logger)
            guard [301, 302, 303, 307, 308].contains(response.status.code),
                let location = response.headers.first(name: "Location")
            else {
                return (response, current.url)
            }
            _ = try? await response.body.collect(upTo: 64 << 10)
            guard let next = URL(string: location, relativeTo: URL(string: current.url))?.absoluteURL.absoluteString
            else {
                throw TaskFailure(
                    code: .refused,
                    message: "\(URLRedaction.redacted(current.url).prefix(200)) redirected to an invalid URL",
                    retryable: false)
            }
            try Self.checkURL(next, reachedFrom: current.url)
            if visited.contains(next) {
                let chain = (visited + [next]).map { String(URLRedaction.redacted($0).prefix(120)) }.joined(
                    separator: " -> ")
                throw TaskFailure(code: .refused, message: "redirect loop: \(chain)", retryable: false)
            }
            guard visited.count <= Self.maxRedirects else {
                throw TaskFailure(
                    code: .refused,
                    message:
                        "\(URLRedaction.redacted(request.url).prefix(200)): more than \(Self.maxRedirects) redirects",
                    retryable: false)
            }
            // Credentials stay with the origin (scheme, host and port) they were sent to: another port is another
            // program, and https to http would show them to the network.
            if !URLOrigin.same(next, current.url) {
                current.headers.remove(name: "Authorization")
                current.headers.remove(name: "Cookie")
                if !Self.scope.trusts(next) {
                    let kept = current.headers.filter { Self.keptAcrossHosts.contains($0.name.lowercased()) }
                    current.headers = HTTPHeaders(kept.map { ($0.name, $0.value) })
                }
            }
            if response.status.code == 303 {
                current.method = .GET
                current.body = nil
            }
            current.url = next
            visited.append(next)
        }
    }
}
