import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Connectivity failures in words a person can act on ("connection refused by 127.0.0.1:8080", "no answer
/// within 30 s", "no such host origin.example"), never a transport library's description.
enum NetworkErrorText {
    /// What went wrong talking to `endpoint` (`host:port`), from the error the HTTP client threw.
    /// `readTimeout` and `connectTimeout` are the client's configured limits, for the message.
    static func describe(_ error: Error, endpoint: String, connectTimeout: Int = 10, readTimeout: Int = 30) -> String {
        switch error {
        case let e as HTTPClientError:
            switch e {
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return "no connection to \(endpoint) within \(connectTimeout) s"
            case .readTimeout:
                return "no answer from \(endpoint) within \(readTimeout) s"
            case .writeTimeout:
                return "\(endpoint) stopped accepting the request"
            case .deadlineExceeded:
                return "no complete answer from \(endpoint) in time"
            case .remoteConnectionClosed:
                return "connection closed by \(endpoint) before the answer was complete"
            case .tlsHandshakeTimeout:
                return "no TLS handshake with \(endpoint) within \(connectTimeout) s"
            default:
                return "request to \(endpoint) failed (\(e))"
            }
        case let e as NIOConnectionError:
            if let first = e.connectionErrors.last {
                return describe(
                    first.error, endpoint: endpoint, connectTimeout: connectTimeout, readTimeout: readTimeout)
            }
            if e.dnsAError != nil || e.dnsAAAAError != nil { return "no such host \(e.host)" }
            return "no connection to \(endpoint)"
        case OriginConnectionError.readTimeout:
            return "no answer from \(endpoint) within \(readTimeout) s"
        case let e as SocketAddressError.UnknownHost:
            return "no such host \(e.host)"
        case let e as IOError:
            return describe(errno: e.errnoCode, endpoint: endpoint, readTimeout: readTimeout)
        case let e as ChannelError:
            switch e {
            case .connectTimeout: return "no connection to \(endpoint) within \(connectTimeout) s"
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                return "connection closed by \(endpoint) before the answer was complete"
            default: return "connection to \(endpoint) failed (\(e))"
            }
        default:
            let text = "\(error)"
            if text.contains("SocketAddressError") || text.contains("UnknownHost") {
                return "no such host \(endpoint.split(separator: ":").first ?? "")"
            }
            return "connection to \(endpoint) failed (\(text.prefix(200)))"
        }
    }

    static func describe(errno code: CInt, endpoint: String, readTimeout: Int = 30) -> String {
        switch code {
        case ECONNREFUSED: return "connection refused by \(endpoint)"
        case ECONNRESET, EPIPE: return "connection reset by \(endpoint)"
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN: return "no route to \(endpoint)"
        case ETIMEDOUT: return "no answer from \(endpoint) within \(readTimeout) s"
        default: return "connection to \(endpoint) failed: \(String(cString: strerror(code)))"
        }
    }

    /// `host:port` of an http(s) URL (port defaulting by scheme).
    static func endpoint(of url: String) -> String {
        guard let u = URL(string: url), let host = u.host else { return "the origin" }
        let port = u.port ?? (u.scheme?.lowercased() == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
