import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StowageProtocol

extension HTTPFetcher {
    /// The hosts the running task may fetch from (set by the worker around each task); nil = any.
    @TaskLocal public static var allowedHosts: HostAllowList?

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
        if let reason = allowedHosts?.refusal(url) {
            throw TaskFailure(code: .refused, message: via + reason, retryable: false)
        }
    }

    /// Executes a request and follows redirects by hand (at most ``maxRedirects``), checking every hop's
    /// scheme and host and refusing loops, so no redirect can lead outside what the task may fetch.
    /// Credentials (`Authorization`, `Cookie`) are not carried to another host. Returns the final
    /// response and its URL.
    package func perform(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> (HTTPClientResponse, String)
    {
        var current = request
        var visited: [String] = [request.url]
        while true {
            let response = try await client.execute(current, timeout: timeout, logger: logger)
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
            if URL(string: next)?.host != URL(string: current.url)?.host {
                current.headers.remove(name: "Authorization")
                current.headers.remove(name: "Cookie")
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
