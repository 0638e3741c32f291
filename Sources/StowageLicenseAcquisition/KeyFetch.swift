import AsyncHTTPClient
import Foundation
import StowageFetch
import StowageProtocol

extension HTTPFetcher {
    /// Fetches an HLS content key of `bytes` bytes (16 for AES-128 and SAMPLE-AES*, 32 for AES-256*) from its
    /// key URI (with the title's headers, cookies and query tokens). A refusal (401/403) is a final license
    /// failure; 5xx and network faults may be retried.
    public func fetchKey(_ url: String, headers: [Header], bytes: Int = 16) async throws(TaskFailure) -> [UInt8] {
        let req = try request(url, headers: headers)
        do {
            let (response, _) = try await perform(req, timeout: .seconds(30))
            let code = Int(response.status.code)
            guard (200..<300).contains(code) else {
                let retryable = code >= 500 || code == 408 || code == 429
                throw TaskFailure(
                    code: .license, message: "key server \(Self.redacted(url)) answered HTTP \(code)",
                    retryable: retryable)
            }
            let body = try await response.body.collect(upTo: 1024)
            guard body.readableBytes == bytes else {
                throw TaskFailure(
                    code: .license,
                    message: "key server \(Self.redacted(url)) sent \(body.readableBytes) bytes; this key is \(bytes)",
                    retryable: false)
            }
            return Array(body.readableBytesView)
        } catch let f as TaskFailure {
            throw f
        } catch {
            // Unreachable is the network's fault, not the license's: the title waits for the host to answer.
            throw Self.networkFailure(error, url: Self.redacted(url))
        }
    }

    /// A key given inline by a `data:` URI (RFC 2397): read, not fetched. A malformed one is a final license
    /// failure whose message says what is wrong, never what the URI holds.
    static func inlineKey(_ key: PlannedKey) throws(TaskFailure) -> [UInt8] {
        do {
            return try DataURI.decode(key.uri, expectedBytes: key.keyLength)
        } catch {
            throw TaskFailure(
                code: .license, message: "key \(DataURI.redacted(key.uri)) (METHOD=\(key.method)): \(error.message)",
                retryable: false)
        }
    }

    /// A URL without its query string (which may carry tokens), for messages and logs.
    public static func redacted(_ url: String) -> String { URLRedaction.redacted(url) }
}
